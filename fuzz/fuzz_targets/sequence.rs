//! Move sequences with letters. The first line is the puzzle spec; lines `b X=...` bind a
//! letter, `d C=...` define one; every other line is part of the sequence.
#![no_main]

#[path = "../../tests/harness/mod.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.split('\n');
    let Some(spec) = lines.next() else { return };
    let Some(puzzle) = harness::spec(spec) else { return };
    let (mut bind, mut define, mut sequence) = (Vec::new(), Vec::new(), String::new());
    for line in lines {
        let letter_value = |rest: &str| {
            let (l, v) = rest.split_once('=').unwrap_or((rest, ""));
            (l.to_string(), v.to_string())
        };
        if let Some(rest) = line.strip_prefix("b ") {
            bind.push(letter_value(rest));
        } else if let Some(rest) = line.strip_prefix("d ") {
            define.push(letter_value(rest));
        } else {
            sequence.push_str(line);
            sequence.push(' ');
        }
    }
    harness::sequence(&puzzle, &bind, &define, &sequence);
});
