//! Boards: the first byte picks the puzzle, the rest is the board text.
#![no_main]

#[path = "../../tests/harness/mod.rs"]
mod harness;

use std::sync::OnceLock;

use twirl::puzzle::Puzzle;

const SPECS: [&str; 5] = ["nrp:3x3:2", "nrp:3x4:3:orient", "spin:3x3", "nrp:2x2:2:orient", "spin:15x17"];

fn puzzles() -> &'static Vec<Puzzle> {
    static P: OnceLock<Vec<Puzzle>> = OnceLock::new();
    P.get_or_init(|| SPECS.iter().map(|s| Puzzle::parse(s, None).unwrap()).collect())
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&pick, text)) = data.split_first() else { return };
    let p = &puzzles()[pick as usize % SPECS.len()];
    harness::board(p, &String::from_utf8_lossy(text));
});
