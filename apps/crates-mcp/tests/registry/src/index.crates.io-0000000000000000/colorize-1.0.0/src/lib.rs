//! Colour terminal text.

/// `text` in red.
pub fn red(text: &str) -> String {
    format!("\x1b[31m{text}\x1b[0m")
}

/// `text` in green.
pub fn green(text: &str) -> String {
    format!("\x1b[32m{text}\x1b[0m")
}
