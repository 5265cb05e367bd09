//! Claims registries (TOML), every claim that parses also checked.
#![no_main]

#[path = "../../tests/harness/mod.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    harness::registry(&String::from_utf8_lossy(data));
});
