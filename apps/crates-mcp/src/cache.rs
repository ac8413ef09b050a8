//! The local cargo registry cache, read as cargo leaves it: every crate
//! version cargo has unpacked sits in `$CARGO_HOME/registry/src/<index>/
//! <name>-<version>/` with its `Cargo.toml`. A scan reads each manifest
//! once into a [`Catalog`]; sources are read on demand.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Component, Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};
use snodo_proto::schemars::{self, JsonSchema};

/// One crate version found in the cache.
#[derive(Clone, Debug, PartialEq)]
pub struct CrateVersion {
    /// Package name.
    pub name: String,
    /// Version string as its manifest gives it.
    pub version: String,
    /// Where its source is unpacked.
    pub dir: PathBuf,
    /// `package.description`.
    pub description: Option<String>,
    /// `package.keywords`.
    pub keywords: Vec<String>,
    /// `[features]`: feature → what it enables.
    pub features: BTreeMap<String, Vec<String>>,
    /// Every dependency, of every kind.
    pub dependencies: Vec<Dependency>,
    /// The README's path inside `dir`, if the crate ships one.
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
    /// Unpacked directories whose manifest could not be read, with why.
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

/// The unpacked-source directories of a registry cache:
/// `<registry>/src/<index>/<crate>-<version>`, sorted.
pub fn crate_dirs(registry: &Path) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let Ok(indexes) = fs::read_dir(registry.join("src")) else {
        return dirs;
    };
    for index in indexes.flatten() {
        if let Ok(entries) = fs::read_dir(index.path()) {
            dirs.extend(
                entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.join("Cargo.toml").is_file()),
            );
        }
    }
    dirs.sort();
    dirs
}

/// Read every crate of `registry`, calling `progress(done, total)` after
/// each.
pub fn scan(registry: &Path, mut progress: impl FnMut(usize, usize)) -> Catalog {
    let dirs = crate_dirs(registry);
    let total = dirs.len();
    let mut catalog = Catalog::default();
    for (i, dir) in dirs.into_iter().enumerate() {
        match read_crate(&dir) {
            Ok(c) => catalog.crates.entry(c.name.clone()).or_default().push(c),
            Err(why) => catalog.skipped.push((dir, why)),
        }
        progress(i + 1, total);
    }
    for versions in catalog.crates.values_mut() {
        versions.sort_by(|a, b| compare_versions(&a.version, &b.version));
        versions.dedup_by(|a, b| a.version == b.version);
    }
    catalog
}

/// A fingerprint of the cache's unpacked crates (each directory and its
/// manifest's modification time): it changes when a crate is added,
/// removed or re-unpacked.
pub fn fingerprint(registry: &Path) -> BTreeMap<PathBuf, Option<SystemTime>> {
    crate_dirs(registry)
        .into_iter()
        .map(|d| {
            let modified = fs::metadata(d.join("Cargo.toml"))
                .and_then(|m| m.modified())
                .ok();
            (d, modified)
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

fn read_crate(dir: &Path) -> Result<CrateVersion, String> {
    let path = dir.join("Cargo.toml");
    let size = fs::metadata(&path).map_err(|e| e.to_string())?.len();
    if size > MAX_MANIFEST {
        return Err(format!("Cargo.toml is {size} bytes"));
    }
    let text = fs::read_to_string(&path).map_err(|e| e.to_string())?;
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
            .find(|r| dir.join(r).is_file())
            .map(String::from),
    }
    .filter(|p| safe_relative(p).is_some() && dir.join(p).is_file());
    Ok(CrateVersion {
        name: manifest.package.name,
        version: manifest.package.version,
        dir: dir.to_path_buf(),
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
