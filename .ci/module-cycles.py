#!/usr/bin/env python3
"""Files of proto/src that reference each other in a circle (module graph SCCs)."""
import os, re, sys
root = sys.argv[1] if len(sys.argv) > 1 else "proto/src"
mods = {}
for d, _, fs in os.walk(root):
    for f in fs:
        if not f.endswith(".rs"): continue
        p = os.path.join(d, f); rel = os.path.relpath(p, root)[:-3].split(os.sep)
        if rel[-1] in ("mod", "lib"): rel = rel[:-1]
        mods[tuple(rel)] = p
def resolve(path):
    # longest prefix that is a module
    for n in range(len(path), 0, -1):
        if tuple(path[:n]) in mods: return tuple(path[:n])
    return None
edges = {m: set() for m in mods}
for m, p in mods.items():
    src = open(p).read()
    src = re.sub(r"//[^\n]*", "", src)
    is_dir = os.path.basename(p) in ("mod.rs", "lib.rs")
    here = list(m) if is_dir else list(m[:-1])
    for mt in re.finditer(r"\b(crate|super)((?:::\w+)+)", src):
        parts = mt.group(2).split("::")[1:]
        if mt.group(1) == "crate": base = []
        else:
            base = list(m[:-1]) if not is_dir else list(m[:-1])
            while parts and parts[0] == "super": parts = parts[1:]; base = base[:-1]
        t = resolve(base + parts)
        if t and t != m: edges[m].add(t)
    # use self::x / mod x children via `self::`
    for mt in re.finditer(r"\bself((?:::\w+)+)", src):
        parts = mt.group(1).split("::")[1:]
        t = resolve(here + parts)
        if t and t != m: edges[m].add(t)
# tarjan
idx = {}; low = {}; st = []; on = set(); out = []; c = [0]
sys.setrecursionlimit(10000)
def sc(v):
    idx[v] = low[v] = c[0]; c[0] += 1; st.append(v); on.add(v)
    for w in edges[v]:
        if w not in idx: sc(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], idx[w])
    if low[v] == idx[v]:
        comp = []
        while True:
            w = st.pop(); on.discard(w); comp.append(w)
            if w == v: break
        if len(comp) > 1: out.append(comp)
for v in mods:
    if v not in idx: sc(v)
total = sum(len(x) for x in out)
print(f"files in a cycle: {total} of {len(mods)}; cycles (SCCs): {len(out)}")
for comp in out:
    print(" ", len(comp), ", ".join(sorted(mods[x][len(root)+1:] for x in comp)))
