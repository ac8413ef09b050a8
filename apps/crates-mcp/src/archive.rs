//! `.crate` archives: what cargo downloads into
//! `$CARGO_HOME/registry/cache/<index>/<name>-<version>.crate` (a gzipped
//! tar whose entries sit under `<name>-<version>/`) and unpacks into
//! `registry/src/` only when a build needs the source. A version that was
//! downloaded but not unpacked (`cargo fetch`, or an unpacked copy cleaned
//! away) is read straight from its archive, in memory, and never written
//! to disk.
//!
//! An archive is untrusted input, so reading one is bounded: the archive's
//! size on disk, the bytes it may inflate to (a gzip bomb stops there), the
//! number of entries, and (by the caller) the size of each file read. Only
//! regular files under the archive's root directory are seen: symbolic and
//! hard links, devices, and paths that are absolute, climb out with `..`
//! or lie outside the root are skipped.

use std::cell::Cell;
use std::fs::File;
use std::io::{self, Read};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use flate2::read::GzDecoder;

use crate::cache::safe_relative;

/// The bounds on reading one archive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest archive read, in bytes on disk (crates.io accepts 10 MiB).
    pub compressed: u64,
    /// Most bytes an archive may inflate to; reading stops there.
    pub unpacked: u64,
    /// Most entries (of any type) read from one archive.
    pub entries: usize,
}

/// The bounds used for the registry cache.
pub const LIMITS: Limits = Limits {
    compressed: 32 * 1024 * 1024,
    unpacked: 256 * 1024 * 1024,
    entries: 20_000,
};

/// The directory an archive's entries sit under: its file name without
/// `.crate` (`tinyjson-0.1.0.crate` → `tinyjson-0.1.0`).
pub fn root_of(archive: &Path) -> Option<&str> {
    archive.file_name()?.to_str()?.strip_suffix(".crate")
}

/// Call `f(path, size, reader)` for each regular file of `archive` in
/// archive order, `path` relative to its root and `/`-separated, until `f`
/// breaks. Fails when the archive is too large, inflates past
/// `limits.unpacked`, holds more than `limits.entries` entries, or is not
/// a gzipped tar; files seen before the failure have been passed to `f`.
pub fn walk(
    archive: &Path,
    limits: &Limits,
    mut f: impl FnMut(&str, u64, &mut dyn Read) -> ControlFlow<()>,
) -> Result<(), String> {
    let root = root_of(archive).ok_or("not a .crate file name")?;
    // A regular file only: opening a FIFO would wait for a writer.
    let meta = std::fs::metadata(archive).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    let file = File::open(archive).map_err(|e| e.to_string())?;
    let size = file.metadata().map_err(|e| e.to_string())?.len();
    if size > limits.compressed {
        return Err(format!(
            "the archive is {size} bytes, over the {} read",
            limits.compressed
        ));
    }
    // The byte budget is on the inflated stream, so no header (a GNU long
    // name, a PAX record) and no file can make the reader hold more.
    let spent = Rc::new(Cell::new(false));
    let inflated = Budget {
        inner: GzDecoder::new(file),
        left: limits.unpacked,
        spent: spent.clone(),
    };
    let mut tar = tar::Archive::new(inflated);
    let too_large = || format!("the archive inflates past {} bytes", limits.unpacked);
    let failed = |e: io::Error| {
        if spent.get() {
            too_large()
        } else {
            e.to_string()
        }
    };
    let entries = tar.entries().map_err(failed)?;
    for (n, entry) in entries.enumerate() {
        if n == limits.entries {
            return Err(format!("the archive has over {} entries", limits.entries));
        }
        let mut entry = entry.map_err(failed)?;
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let Some(rel) = inside(root, &entry.path_bytes()) else {
            continue;
        };
        let size = entry.header().entry_size().unwrap_or(u64::MAX);
        if f(&rel, size, &mut entry).is_break() {
            return Ok(());
        }
    }
    // The budget ran out on an entry boundary: tar saw a clean end.
    if spent.get() {
        return Err(too_large());
    }
    Ok(())
}

/// A reader that ends after `left` bytes and says so in `spent` when
/// asked for more.
struct Budget<R> {
    inner: R,
    left: u64,
    spent: Rc<Cell<bool>>,
}

impl<R: Read> Read for Budget<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.left == 0 {
            self.spent.set(true);
            return Ok(0);
        }
        let max = buf
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..max])?;
        self.left -= n as u64;
        Ok(n)
    }
}

/// An entry's path relative to `root`, if it is a UTF-8 path inside it.
fn inside(root: &str, raw: &[u8]) -> Option<String> {
    let path = std::str::from_utf8(raw).ok()?;
    let rest = path.strip_prefix(root)?.strip_prefix('/')?;
    let rel: PathBuf = safe_relative(rest)?;
    let parts: Vec<&str> = rel.iter().map(|p| p.to_str()).collect::<Option<_>>()?;
    Some(parts.join("/"))
}

/// Read `reader` (an entry of `size` bytes) as UTF-8 text, or `None` when
/// it is over `max` bytes or not UTF-8.
pub fn read_capped(reader: &mut dyn Read, size: u64, max: u64) -> Option<String> {
    if size > max {
        return None;
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).ok()?);
    reader.take(max + 1).read_to_end(&mut bytes).ok()?;
    if bytes.len() as u64 > max {
        return None;
    }
    String::from_utf8(bytes).ok()
}

/// The text of the file `rel` in `archive`, if it is there as a regular
/// file of at most `max` bytes.
pub fn read_file(archive: &Path, rel: &str, max: u64) -> Option<String> {
    let wanted = safe_relative(rel)?;
    let mut text = None;
    let walked = walk(archive, &LIMITS, |path, size, reader| {
        if Path::new(path) != wanted {
            return ControlFlow::Continue(());
        }
        text = read_capped(reader, size, max);
        ControlFlow::Break(())
    });
    if let Err(why) = walked {
        tracing::warn!(archive = %archive.display(), %why, "a crate archive was read in part");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A gzipped tar of `entries`: (raw path, type, contents). The path is
    /// written into the header's bytes as given, `..` and all, as a
    /// hostile archive would.
    fn archive(entries: &[(&str, tar::EntryType, &[u8])]) -> Vec<u8> {
        let mut tar = tar::Builder::new(Vec::new());
        for (path, kind, data) in entries {
            let mut h = tar::Header::new_gnu();
            let name = &mut h.as_gnu_mut().unwrap().name;
            name[..path.len()].copy_from_slice(path.as_bytes());
            h.set_entry_type(*kind);
            h.set_mode(0o644);
            h.set_size(data.len() as u64);
            if *kind == tar::EntryType::Symlink {
                h.set_link_name("/etc/passwd").unwrap();
            }
            h.set_cksum();
            tar.append(&h, *data).unwrap();
        }
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&tar.into_inner().unwrap()).unwrap();
        gz.finish().unwrap()
    }

    fn write(name: &str, bytes: &[u8]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("snodo-archive-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    fn files(path: &Path, limits: &Limits) -> (Vec<String>, Result<(), String>) {
        let mut seen = Vec::new();
        let result = walk(path, limits, |p, size, r| {
            let text = read_capped(r, size, 100).unwrap_or_else(|| "(over 100 bytes)".into());
            seen.push(format!("{p}: {text}"));
            ControlFlow::Continue(())
        });
        (seen, result)
    }

    const FILE: tar::EntryType = tar::EntryType::Regular;

    #[test]
    fn only_regular_files_inside_the_root_are_seen() {
        let path = write(
            "evil-1.0.0.crate",
            &archive(&[
                ("evil-1.0.0/Cargo.toml", FILE, b"[package]"),
                ("evil-1.0.0/../escape.rs", FILE, b"outside"),
                ("evil-1.0.0/src/../../escape.rs", FILE, b"outside"),
                ("/etc/passwd", FILE, b"absolute"),
                ("other-2.0.0/src/lib.rs", FILE, b"another root"),
                ("evil-1.0.0x/src/lib.rs", FILE, b"a longer root"),
                ("evil-1.0.0/src/link.rs", tar::EntryType::Symlink, b""),
                ("evil-1.0.0/src", tar::EntryType::Directory, b""),
                ("evil-1.0.0/./src/lib.rs", FILE, b"pub fn inside() {}"),
                ("evil-1.0.0/big.rs", FILE, &[b'x'; 101]),
            ]),
        );
        assert_eq!(
            files(&path, &LIMITS),
            (
                vec![
                    "Cargo.toml: [package]".to_string(),
                    "src/lib.rs: pub fn inside() {}".to_string(),
                    "big.rs: (over 100 bytes)".to_string(),
                ],
                Ok(())
            )
        );
        assert_eq!(
            read_file(&path, "src/lib.rs", 100).as_deref(),
            Some("pub fn inside() {}")
        );
        for absent in ["../escape.rs", "src/link.rs", "escape.rs", "big.rs"] {
            assert_eq!(read_file(&path, absent, 100), None, "{absent}");
        }
    }

    #[test]
    fn a_gzip_bomb_stops_at_the_inflated_budget() {
        // 1 MiB of zeros compresses to about 1 KiB.
        let zeros = vec![0u8; 1024 * 1024];
        let path = write(
            "bomb-0.1.0.crate",
            &archive(&[
                ("bomb-0.1.0/Cargo.toml", FILE, b"[package]"),
                ("bomb-0.1.0/zeros", FILE, &zeros),
                ("bomb-0.1.0/after.rs", FILE, b"never reached"),
            ]),
        );
        assert!(std::fs::metadata(&path).unwrap().len() < 16 * 1024);
        let limits = Limits {
            unpacked: 64 * 1024,
            ..LIMITS
        };
        let (seen, result) = files(&path, &limits);
        assert_eq!(
            result,
            Err("the archive inflates past 65536 bytes".to_string())
        );
        assert_eq!(seen[0], "Cargo.toml: [package]");
        assert!(!seen.iter().any(|s| s.starts_with("after.rs")), "{seen:?}");
        // With the real budget it reads through.
        assert_eq!(files(&path, &LIMITS).1, Ok(()));
    }

    #[test]
    fn too_many_entries_or_too_large_an_archive_is_refused() {
        let path = write(
            "many-0.1.0.crate",
            &archive(&[
                ("many-0.1.0/a", FILE, b"a"),
                ("many-0.1.0/b", FILE, b"b"),
                ("many-0.1.0/c", FILE, b"c"),
            ]),
        );
        let (seen, result) = files(
            &path,
            &Limits {
                entries: 2,
                ..LIMITS
            },
        );
        assert_eq!(
            (seen, result),
            (
                vec!["a: a".to_string(), "b: b".to_string()],
                Err("the archive has over 2 entries".to_string())
            )
        );
        let (seen, result) = files(
            &path,
            &Limits {
                compressed: 10,
                ..LIMITS
            },
        );
        assert!(seen.is_empty());
        assert!(result.unwrap_err().ends_with("bytes, over the 10 read"));
    }

    #[test]
    fn what_is_not_a_gzipped_tar_is_an_error_not_a_panic() {
        let path = write("junk-0.1.0.crate", b"not gzip at all");
        assert!(files(&path, &LIMITS).1.is_err());
        let path = write("plain-0.1.0.tar", b"");
        assert_eq!(
            files(&path, &LIMITS).1,
            Err("not a .crate file name".to_string())
        );
        let dir = path.with_file_name("dir-0.1.0.crate");
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(
            files(&dir, &LIMITS).1,
            Err("not a regular file".to_string())
        );
    }
}
