//! The binary payloads the fixture serves, as base64.
//!
//! The conformance checks only require non-empty `data`/`blob` with the
//! right MIME type, but the bytes are real files so a client that decodes
//! them gets something valid.

/// A 1×1 RGBA PNG (signature, IHDR, IDAT, IEND; every chunk CRC correct).
pub const PNG_1X1: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/// A 52-byte RIFF/WAVE file: PCM, mono, 8 kHz, 8-bit, eight samples of silence.
pub const WAV_SILENCE: &str =
    "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";
