//! Result JSON read by `twirl plot`, drawn on both axes.
#![no_main]

#[path = "../../tests/harness/mod.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    harness::report(&String::from_utf8_lossy(data));
});
