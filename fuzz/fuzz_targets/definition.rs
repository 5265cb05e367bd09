//! Puzzle definitions (ksolve/twsearch `.tws` files).
#![no_main]

#[path = "../../tests/harness/mod.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    harness::definition(&String::from_utf8_lossy(data));
});
