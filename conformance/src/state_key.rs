//! The fixture's request-state key, from the environment.
//!
//! Two fixture processes continue each other's MRTR rounds only if they
//! seal `requestState` with the same key (`basic/patterns/mrtr.mdx`: the
//! retry may reach any instance). `SNODO_STATE_KEY` holds it as hex (at
//! least 32 bytes); an environment variable rather than a flag keeps the
//! secret out of process listings. Unset, the engine generates a key that
//! serves this process alone.

use snodo_proto::{mrtr::MIN_SECRET_BYTES, StateKeys};

/// The environment variable holding the key.
pub const ENV: &str = "SNODO_STATE_KEY";

/// Keys from `value` (hex); `Err` says why it is unusable.
pub fn parse(value: &str) -> Result<StateKeys, String> {
    let hex = value.trim();
    if hex.len() % 2 != 0 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("{ENV} must be hexadecimal"));
    }
    let bytes: Vec<u8> = (0..hex.len())
        .step_by(2)
        .filter_map(|i| u8::from_str_radix(&hex[i..i + 2], 16).ok())
        .collect();
    if bytes.len() < MIN_SECRET_BYTES {
        return Err(format!(
            "{ENV} must hold at least {MIN_SECRET_BYTES} bytes ({} hex digits)",
            2 * MIN_SECRET_BYTES
        ));
    }
    Ok(StateKeys::new(bytes))
}

/// The key `SNODO_STATE_KEY` names, if set.
pub fn from_env() -> Result<Option<StateKeys>, String> {
    match std::env::var(ENV) {
        Ok(v) => parse(&v).map(Some),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => Err(format!("{ENV} must be hexadecimal")),
    }
}

/// Keys from the file at `path` (hex, surrounding whitespace ignored), as
/// `--state-key-file` names it: a secret in a file readable by the
/// fixture alone, rather than in its environment.
pub fn from_file(path: &std::path::Path) -> Result<StateKeys, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the state key file {}: {e}", path.display()))?;
    parse(&text).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_keys_of_32_bytes_or_more() {
        let k = parse(&"ab".repeat(32)).unwrap();
        assert_eq!(
            k.signing_key_id(),
            StateKeys::new([0xab; 32]).signing_key_id()
        );
        assert!(parse(&"AB".repeat(40)).is_ok());
        assert!(parse(&"ab".repeat(31)).is_err(), "too short");
        assert!(parse("abc").is_err(), "odd length");
        assert!(parse(&"zz".repeat(32)).is_err(), "not hex");
    }

    #[test]
    fn a_key_file_holds_the_same_hex() {
        let path = std::env::temp_dir().join(format!("snodo-state-key-{}", std::process::id()));
        std::fs::write(&path, format!("{}\n", "cd".repeat(32))).unwrap();
        let k = from_file(&path).unwrap();
        assert_eq!(
            k.signing_key_id(),
            StateKeys::new([0xcd; 32]).signing_key_id()
        );
        std::fs::write(&path, "cd").unwrap();
        assert!(from_file(&path).is_err(), "too short");
        std::fs::remove_file(&path).unwrap();
        assert!(from_file(&path).is_err(), "missing");
    }
}
