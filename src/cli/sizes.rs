//! Byte sizes: parsing `--max-memory 8G`, printing `194.0 MiB`, and what the machine has.

/// Parses `123`, `64K`, `512M`, `8G`, `1.5GiB`, `2T` (binary multiples).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let value: f64 = num.parse().map_err(|_| format!("`{text}` is not a size (e.g. 512M, 8G)"))?;
    let shift = match unit.trim().to_ascii_uppercase().trim_end_matches("IB").trim_end_matches('B')
    {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => return Err(format!("`{text}`: unknown unit (use K, M, G or T)")),
    };
    Ok((value * (1u64 << shift) as f64) as u64)
}

/// `194.0 MiB`.
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 { format!("{bytes} bytes") } else { format!("{v:.1} {}", UNITS[u]) }
}

pub use twirl::table::available_memory;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("123").unwrap(), 123);
        assert_eq!(parse_size("64K").unwrap(), 65536);
        assert_eq!(parse_size("1.5GiB").unwrap(), 3 << 29);
        assert_eq!(parse_size("8g").unwrap(), 8 << 30);
        assert!(parse_size("lots").is_err());
        assert!(parse_size("8Q").is_err());
        assert_eq!(human(203_212_800), "193.8 MiB");
        assert_eq!(human(10), "10 bytes");
    }
}
