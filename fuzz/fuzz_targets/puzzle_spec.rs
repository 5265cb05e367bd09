//! Puzzle specs (`nrp:3x3:2`, `spin:3x3:1x1,1x2`): a clean error or a spec that prints back.
#![no_main]

#[path = "../../tests/harness/mod.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    harness::spec(&String::from_utf8_lossy(data));
});
