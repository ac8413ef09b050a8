//! The local cargo registry cache, read as cargo leaves it: every crate
//! version cargo has unpacked sits in `$CARGO_HOME/registry/src/<index>/
//! <name>-<version>/` with its `Cargo.toml`; every version it downloaded
//! is a `.crate` archive in `registry/cache/<index>/`, read in place (see
//! [`archive`]) when cargo has not unpacked it. A scan
//! reads each manifest once into a [`Catalog`]; sources are read on demand.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::ops::ControlFlow;
use std::path::{Component, Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};
use snodo_proto::schemars::{self, JsonSchema};

use crate::archive;

/// Where a crate version's files are.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Source {
    /// Unpacked by cargo: `registry/src/<index>/<name>-<version>/`.
    Dir(PathBuf),
    /// Only downloaded: `registry/cache/<index>/<name>-<version>.crate`.
    Archive(PathBuf),
}

impl Source {
    /// The directory or archive.
    pub fn path(&self) -> &Path {
        match self {
            Source::Dir(p) | Source::Archive(p) => p,
        }
    }

    /// The text of the file at `rel` (a relative path inside the crate),
    /// if it is a regular file of at most `max` bytes in UTF-8; `None` for
    /// paths that leave the crate, through `..` or a symbolic link.
    pub fn read(&self, rel: &str, max: u64) -> Option<String> {
        match self {
            Source::Dir(dir) => {
                let rel = safe_relative(rel)?;
                // Resolved, so a symbolic link inside the crate cannot
                // lead out of it.
                let path = dir.join(rel).canonicalize().ok()?;
                if !path.starts_with(dir.canonicalize().ok()?) {
                    return None;
                }
                let meta = fs::metadata(&path).ok()?;
                if !meta.is_file() || meta.len() > max {
                    return None;
                }
                fs::read_to_string(path).ok()
            }
            Source::Archive(path) => archive::read_file(path, rel, max),
        }
    }
}

/// One crate version found in the cache.
#[derive(Clone, Debug, PartialEq)]
pub struct CrateVersion {
    /// Package name.
    pub name: String,
    /// Version string as its manifest gives it.
    pub version: String,
    /// Where its files are.
    pub source: Source,
    /// `package.description`.
    pub description: Option<String>,
    /// `package.keywords`.
    pub keywords: Vec<String>,
    /// `[features]`: feature → what it enables.
    pub features: BTreeMap<String, Vec<String>>,
    /// Every dependency, of every kind.
    pub dependencies: Vec<Dependency>,
    /// The README's path inside the crate, if it ships one.
    pub readme: Option<String>,
}

/// A dependency as a manifest declares it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Dependency {
    /// The name it is used under.
    pub name: String,
    /// The version requirement (`*` when none is given).
    pub req: String,
    /// `normal`, `dev` or `build`.
    pub kind: String,
    /// Whether a feature turns it on.
    pub optional: bool,
}

/// Every crate version in the cache, by name, oldest version first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Catalog {
    /// Name → versions, ascending.
    pub crates: BTreeMap<String, Vec<CrateVersion>>,
    /// Directories and archives whose manifest could not be read, with why.
    pub skipped: Vec<(PathBuf, String)>,
}

impl Catalog {
    /// The version `version` of `name`, or its newest when `None`.
    pub fn get(&self, name: &str, version: Option<&str>) -> Option<&CrateVersion> {
        let versions = self.crates.get(name)?;
        match version {
            Some(v) => versions.iter().find(|c| c.version == v),
            None => versions.last(),
        }
    }

    /// How many crate versions there are.
    pub fn len(&self) -> usize {
        self.crates.values().map(Vec::len).sum()
    }

    /// Whether the cache holds none.
    pub fn is_empty(&self) -> bool {
        self.crates.is_empty()
    }
}

/// The crate versions of a registry cache, sorted by directory name: each
/// `<registry>/src/<index>/<crate>-<version>` with a `Cargo.toml`, and
/// each `<registry>/cache/<index>/<crate>-<version>.crate` that cargo has
/// not unpacked there.
pub fn crate_sources(registry: &Path) -> Vec<Source> {
    let mut sources = Vec::new();
    let mut unpacked = BTreeSet::new();
    for dir in entries(&registry.join("src")) {
        for path in entries(&dir) {
            if path.join("Cargo.toml").is_file() {
                unpacked.insert((index_of(&path), path.file_name().map(|n| n.to_owned())));
                sources.push(Source::Dir(path));
            }
        }
    }
    for dir in entries(&registry.join("cache")) {
        for path in entries(&dir) {
            let Some(root) = archive::root_of(&path) else {
                continue;
            };
            let key = (index_of(&path), Some(std::ffi::OsString::from(root)));
            if path.is_file() && !unpacked.contains(&key) {
                sources.push(Source::Archive(path));
            }
        }
    }
    let name = |s: &Source| {
        let p = s.path();
        let file = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        (
            file.strip_suffix(".crate").unwrap_or(file).to_string(),
            p.to_path_buf(),
        )
    };
    sources.sort_by_key(name);
    sources
}

fn entries(dir: &Path) -> Vec<PathBuf> {
    fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

/// The index directory's name (`index.crates.io-…`) a crate path is in.
fn index_of(path: &Path) -> Option<std::ffi::OsString> {
    path.parent()?.file_name().map(|n| n.to_owned())
}

/// Read every crate of `registry`, calling `progress(done, total)` after
/// each.
pub fn scan(registry: &Path, progress: impl FnMut(usize, usize)) -> Catalog {
    let mut progress = progress;
    scan_until(registry, |done, total| {
        progress(done, total);
        ControlFlow::Continue(())
    })
    .unwrap_or_default()
}

/// [`scan`], asking `progress` after each crate version whether to go on:
/// `None` when it said to stop (the caller's interest is gone, and a
/// partial catalog must not replace a whole one).
pub fn scan_until(
    registry: &Path,
    mut progress: impl FnMut(usize, usize) -> ControlFlow<()>,
) -> Option<Catalog> {
    let sources = crate_sources(registry);
    let total = sources.len();
    let mut catalog = Catalog::default();
    for (i, source) in sources.into_iter().enumerate() {
        match read_crate(&source) {
            Ok(c) => catalog.crates.entry(c.name.clone()).or_default().push(c),
            Err(why) => catalog.skipped.push((source.path().to_path_buf(), why)),
        }
        if progress(i + 1, total).is_break() {
            return None;
        }
    }
    for versions in catalog.crates.values_mut() {
        versions.sort_by(|a, b| compare_versions(&a.version, &b.version));
        versions.dedup_by(|a, b| a.version == b.version);
    }
    Some(catalog)
}

/// A fingerprint of the cache's crates (each directory's manifest and each
/// archive, with its modification time): it changes when a crate is
/// added, removed, re-unpacked or re-downloaded.
pub fn fingerprint(registry: &Path) -> BTreeMap<PathBuf, Option<SystemTime>> {
    crate_sources(registry)
        .into_iter()
        .map(|s| {
            let file = match &s {
                Source::Dir(d) => d.join("Cargo.toml"),
                Source::Archive(a) => a.clone(),
            };
            let modified = fs::metadata(&file).and_then(|m| m.modified()).ok();
            (file, modified)
        })
        .collect()
}

#[derive(Deserialize)]
struct Manifest {
    package: Package,
    #[serde(default)]
    features: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    dependencies: BTreeMap<String, DepSpec>,
    #[serde(default, rename = "dev-dependencies")]
    dev_dependencies: BTreeMap<String, DepSpec>,
    #[serde(default, rename = "build-dependencies")]
    build_dependencies: BTreeMap<String, DepSpec>,
}

#[derive(Deserialize)]
struct Package {
    name: String,
    version: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    keywords: Vec<String>,
    #[serde(default)]
    readme: Option<toml::Value>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum DepSpec {
    Req(String),
    Detailed {
        #[serde(default)]
        version: Option<String>,
        #[serde(default)]
        optional: bool,
    },
}

/// Largest manifest read, in bytes (a registry manifest is a few KiB).
const MAX_MANIFEST: u64 = 1024 * 1024;
/// Most bytes of an archive's file names kept while it is scanned.
const MAX_NAMES: usize = 1024 * 1024;

/// Whether a crate has a file at a `/`-separated path.
type FileTest = Box<dyn Fn(&str) -> bool>;

fn read_crate(source: &Source) -> Result<CrateVersion, String> {
    // The manifest, and whether a file is there (for the README).
    let (text, exists): (String, FileTest) = match source {
        Source::Dir(dir) => {
            let path = dir.join("Cargo.toml");
            let size = fs::metadata(&path).map_err(|e| e.to_string())?.len();
            if size > MAX_MANIFEST {
                return Err(format!("Cargo.toml is {size} bytes"));
            }
            let text = fs::read_to_string(&path).map_err(|e| e.to_string())?;
            let dir = dir.clone();
            (text, Box::new(move |p: &str| dir.join(p).is_file()))
        }
        Source::Archive(path) => {
            let mut manifest = None;
            // The file names, for finding the README: at most
            // MAX_NAMES bytes of them are kept.
            let (mut files, mut kept) = (BTreeSet::new(), 0);
            archive::walk(path, &archive::LIMITS, |rel, size, reader| {
                if rel == "Cargo.toml" && manifest.is_none() {
                    manifest = Some(
                        archive::read_capped(reader, size, MAX_MANIFEST)
                            .ok_or(format!("Cargo.toml is {size} bytes or not UTF-8")),
                    );
                }
                if kept + rel.len() <= MAX_NAMES {
                    kept += rel.len();
                    files.insert(rel.to_string());
                }
                ControlFlow::Continue(())
            })?;
            let text = manifest.ok_or("the archive has no Cargo.toml")??;
            (text, Box::new(move |p: &str| files.contains(p)))
        }
    };
    let manifest: Manifest = toml::from_str(&text).map_err(|e| e.to_string())?;
    let mut dependencies = Vec::new();
    for (kind, deps) in [
        ("normal", manifest.dependencies),
        ("dev", manifest.dev_dependencies),
        ("build", manifest.build_dependencies),
    ] {
        for (name, spec) in deps {
            let (req, optional) = match spec {
                DepSpec::Req(r) => (r, false),
                DepSpec::Detailed { version, optional } => {
                    (version.unwrap_or_else(|| "*".into()), optional)
                }
            };
            dependencies.push(Dependency {
                name,
                req,
                kind: kind.into(),
                optional,
            });
        }
    }
    let readme = match manifest.package.readme {
        Some(toml::Value::String(p)) => Some(p),
        Some(toml::Value::Boolean(false)) => None,
        _ => ["README.md", "README", "README.txt"]
            .into_iter()
            .find(|r| exists(r))
            .map(String::from),
    }
    .filter(|p| {
        safe_relative(p).is_some_and(|rel| {
            let parts: Option<Vec<&str>> = rel.iter().map(|c| c.to_str()).collect();
            parts.is_some_and(|parts| exists(&parts.join("/")))
        })
    });
    Ok(CrateVersion {
        name: manifest.package.name,
        version: manifest.package.version,
        source: source.clone(),
        description: manifest.package.description.map(|d| d.trim().to_string()),
        keywords: manifest.package.keywords,
        features: manifest.features,
        dependencies,
        readme,
    })
}

/// `path` as a relative path that stays inside its root (no `..`, no
/// root or prefix), or `None`.
pub fn safe_relative(path: &str) -> Option<PathBuf> {
    let p = Path::new(path);
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Normal(part) => out.push(part),
            Component::CurDir => {}
            _ => return None,
        }
    }
    (!out.as_os_str().is_empty()).then_some(out)
}

/// Order two version strings as semver does for the common shapes:
/// numeric `major.minor.patch`, a pre-release before its release,
/// pre-releases compared field by field, build metadata ignored.
pub fn compare_versions(a: &str, b: &str) -> std::cmp::Ordering {
    fn split(v: &str) -> (Vec<u64>, Option<&str>) {
        let v = v.split('+').next().unwrap_or(v);
        let (core, pre) = match v.split_once('-') {
            Some((c, p)) => (c, Some(p)),
            None => (v, None),
        };
        (
            core.split('.').map(|n| n.parse().unwrap_or(0)).collect(),
            pre,
        )
    }
    fn pre_cmp(a: &str, b: &str) -> std::cmp::Ordering {
        for (x, y) in a.split('.').zip(b.split('.')) {
            let o = match (x.parse::<u64>(), y.parse::<u64>()) {
                (Ok(m), Ok(n)) => m.cmp(&n),
                (Ok(_), Err(_)) => std::cmp::Ordering::Less,
                (Err(_), Ok(_)) => std::cmp::Ordering::Greater,
                (Err(_), Err(_)) => x.cmp(y),
            };
            if o.is_ne() {
                return o;
            }
        }
        a.split('.').count().cmp(&b.split('.').count())
    }
    let (ca, pa) = split(a);
    let (cb, pb) = split(b);
    ca.cmp(&cb).then_with(|| match (pa, pb) {
        (None, None) => std::cmp::Ordering::Equal,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (Some(_), None) => std::cmp::Ordering::Less,
        (Some(x), Some(y)) => pre_cmp(x, y),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_order_as_semver() {
        let mut v = vec![
            "1.10.0",
            "1.2.0",
            "1.2.0-beta.2",
            "1.2.0-beta.10",
            "0.9.1",
            "1.2.0-alpha",
        ];
        v.sort_by(|a, b| compare_versions(a, b));
        assert_eq!(
            v,
            [
                "0.9.1",
                "1.2.0-alpha",
                "1.2.0-beta.2",
                "1.2.0-beta.10",
                "1.2.0",
                "1.10.0"
            ]
        );
    }

    #[test]
    fn only_paths_inside_the_root_are_safe() {
        assert_eq!(
            safe_relative("src/lib.rs"),
            Some(PathBuf::from("src/lib.rs"))
        );
        assert_eq!(
            safe_relative("./README.md"),
            Some(PathBuf::from("README.md"))
        );
        for bad in ["../x", "src/../../x", "/etc/passwd", "", "."] {
            assert_eq!(safe_relative(bad), None, "{bad}");
        }
    }
}
