#!/usr/bin/env python3
"""Make a cargo local registry (source replacement for crates.io) of the
packaged snodo crates and the crates.io crates the workspace's Cargo.lock
pins, so a project outside the workspace resolves `snodo = "0.1.0"` the
way it would from crates.io once published, from those files alone.

    .ci/local-registry.py REGISTRY_DIR LOCKFILE CRATE_FILE...

Each packaged `.crate` gets an index entry made from its own normalized
Cargo.toml (what cargo would publish); every other package of the lockfile
gets crates.io's own index entry, read from cargo's index cache, and its
`.crate` from cargo's download cache where it was downloaded (a package
only another platform needs is never built, so it needs no file).
Layout and entry format: the Cargo Book, "Source Replacement" (Local
Registry Sources) and "Registries" (Index Format).
"""

import glob
import hashlib
import json
import os
import sys
import tarfile
import tomllib

CARGO_HOME = os.environ.get("CARGO_HOME", os.path.expanduser("~/.cargo"))
CRATES_IO = "registry+https://github.com/rust-lang/crates.io-index"


def index_path(name):
    """The index file of a package, by the Index Format's rules."""
    n = name.lower()
    if len(n) <= 2:
        return os.path.join(str(len(n)), n)
    if len(n) == 3:
        return os.path.join("3", n[0], n)
    return os.path.join(n[0:2], n[2:4], n)


def cached_entries(name):
    """crates.io's index lines of `name`, by version, from cargo's cache.

    The cache file is: a cache version byte, a u32 index version, a
    NUL-terminated header, then NUL-terminated (version, JSON) pairs."""
    entries = {}
    for cache in glob.glob(os.path.join(CARGO_HOME, "registry/index/*/.cache", index_path(name))):
        data = open(cache, "rb").read()
        parts = data[5:].split(b"\0")
        # parts[0] is the header; then version, json, version, json, ...
        for i in range(1, len(parts) - 1, 2):
            try:
                entries[parts[i].decode()] = parts[i + 1].decode()
            except UnicodeDecodeError:
                pass
    return entries


def dep_entries(table, kind, target):
    out = []
    for key, spec in (table or {}).items():
        if isinstance(spec, str):
            spec = {"version": spec}
        out.append({
            "name": key,
            "req": spec.get("version", "*"),
            "features": spec.get("features", []),
            "optional": spec.get("optional", False),
            "default_features": spec.get("default-features", True),
            "target": target,
            "kind": kind,
            "registry": None,
            "package": spec.get("package"),
        })
    return out


def packaged_entry(crate_file):
    """The index entry cargo would publish for a packaged `.crate`."""
    data = open(crate_file, "rb").read()
    with tarfile.open(crate_file, "r:gz") as tar:
        member = next(m for m in tar.getmembers() if m.name.count("/") == 1 and m.name.endswith("/Cargo.toml"))
        manifest = tomllib.load(tar.extractfile(member))
    pkg = manifest["package"]
    deps = dep_entries(manifest.get("dependencies"), "normal", None)
    deps += dep_entries(manifest.get("build-dependencies"), "build", None)
    for target, tables in (manifest.get("target") or {}).items():
        deps += dep_entries(tables.get("dependencies"), "normal", target)
        deps += dep_entries(tables.get("build-dependencies"), "build", target)
    entry = {
        "name": pkg["name"],
        "vers": pkg["version"],
        "deps": deps,
        "cksum": hashlib.sha256(data).hexdigest(),
        "features": manifest.get("features", {}),
        "yanked": False,
        "links": pkg.get("links"),
        "rust_version": pkg.get("rust-version"),
        "v": 2,
    }
    return pkg["name"], pkg["version"], json.dumps(entry)


def main():
    registry, lockfile, crates = sys.argv[1], sys.argv[2], sys.argv[3:]
    index = {}
    os.makedirs(os.path.join(registry, "index"), exist_ok=True)
    own = set()
    for crate in crates:
        name, version, line = packaged_entry(crate)
        own.add(name)
        index.setdefault(name, []).append(line)
        os.symlink(os.path.abspath(crate), os.path.join(registry, f"{name}-{version}.crate"))
    missing = []
    for package in tomllib.load(open(lockfile, "rb")).get("package", []):
        if package.get("source") != CRATES_IO or package["name"] in own:
            continue
        name, version = package["name"], package["version"]
        line = cached_entries(name).get(version)
        if line is None:
            missing.append(f"{name} {version}")
            continue
        index.setdefault(name, []).append(line)
        for cached in glob.glob(os.path.join(CARGO_HOME, "registry/cache/*", f"{name}-{version}.crate")):
            os.symlink(cached, os.path.join(registry, f"{name}-{version}.crate"))
            break
    if missing:
        sys.exit("no cached crates.io index entry for: " + ", ".join(missing))
    for name, lines in index.items():
        path = os.path.join(registry, "index", index_path(name))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
    print(f"local registry: {len(own)} packaged crates, {len(index) - len(own)} from crates.io")


main()
