// A baseline only grows with a reason.
//
// Usage: node shrink.mjs --baseline FILE
//
// Compares every committed version of FILE (and the working copy, when it
// differs from HEAD's) with the version before it: the same file in the
// first parent of the commit that changed it. An expected non-success that
// was not there before, a `wire-schema-valid` allowance that was not there
// before, or an expected `message` that changed is growth. Growth is
// accepted when the grown check's entry carries a `why` that the version
// before did not have (or the current baseline does, when the reason was
// added afterwards); the lane prints each accepted growth with its `why`.
// Anything else exits 1.
//
// Only versions in the by-content format (`"format": 2`) are judged (the
// change into it for new expected non-successes only, since the version
// before named no content); a version that leaves it is refused. A version
// with no version before it is compared with an empty baseline. In a
// shallow clone the walk stops where the history does and
// says so; outside a git checkout there is nothing to compare and it says
// that too (exit 0 in both cases: it cannot judge what it cannot see).

import { readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, basename, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const ok = (s) => s === "SUCCESS" || s === "INFO";
const statusOf = (entry) => (typeof entry === "string" ? entry : entry?.status);
const allowanceKey = (a) => JSON.stringify(["definition", "instancePath", "error", "of", "resultIs"].map((f) => a?.[f] ?? null));

function nonSuccesses(baseline) {
  const out = new Map();
  for (const [scenario, s] of Object.entries(baseline?.scenarios ?? {})) {
    for (const [check, entry] of Object.entries(s?.checks ?? {})) {
      if (!ok(statusOf(entry))) out.set(`${scenario}:${check}`, entry);
    }
  }
  return out;
}

// What `next` expects to fail that `prev` did not, as
// { check, what, why } with `why` the reason that makes it acceptable, or
// null. `prev` null is the empty baseline. A `prev` from before the
// by-content format named no content, so against it only a new or changed
// status is growth.
export function growth(prev, next) {
  const before = nonSuccesses(prev);
  const out = [];
  for (const [check, entry] of nonSuccesses(next)) {
    const old = before.get(check);
    const why = typeof entry?.why === "string" && entry.why.trim() !== "" && entry.why !== old?.why ? entry.why : null;
    const what = [];
    if (old === undefined) {
      what.push(`new expected ${statusOf(entry)}`);
    } else if (statusOf(old) !== statusOf(entry)) {
      what.push(`expected ${statusOf(old)} became expected ${statusOf(entry)}`);
    } else if (prev.format === 2) {
      const had = new Set((old?.allowedViolations ?? []).map(allowanceKey));
      for (const a of entry?.allowedViolations ?? []) {
        if (!had.has(allowanceKey(a))) what.push(`newly allows ${a.definition}${a.instancePath}: ${a.error} (result of ${a.of})`);
      }
      if (entry?.message !== old?.message) what.push(`expected message changed to ${JSON.stringify(entry?.message)}`);
    }
    for (const w of what) out.push({ check, what: w, why });
  }
  return out;
}

// Growth between two versions, judged: `accepted` carry their why,
// `refused` have none. `current` (the newest baseline) may supply a why
// added after the commit that grew it, while it still expects that growth.
export function judge(prev, next, current = next) {
  const accepted = [];
  const refused = [];
  if (prev !== null && prev.format === 2 && next?.format !== 2) {
    refused.push({ check: "(file)", what: `leaves the by-content format ("format": 2)`, why: null });
    return { accepted, refused };
  }
  for (const g of growth(prev, next)) {
    if (g.why) {
      accepted.push(g);
      continue;
    }
    const still = growth(prev, current).find((c) => c.check === g.check && c.what === g.what);
    if (!still) continue; // grown then, gone since: nothing expected of it now
    if (still.why) accepted.push({ ...g, why: `${still.why} (given later)` });
    else refused.push(g);
  }
  return { accepted, refused };
}

function git(cwd, ...args) {
  const r = spawnSync("git", args, { cwd, encoding: "utf8", maxBuffer: 64 << 20 });
  return r.status === 0 ? r.stdout : null;
}

// Every transition of the file's history that is in the by-content format,
// newest first: { label, prev, next } with prev null for "no file before".
export function history(file) {
  const cwd = dirname(file);
  const notes = [];
  const path = git(cwd, "ls-files", "--full-name", "--", basename(file))?.trim();
  if (!path) return { transitions: [], notes: [`${file} is not in a git checkout's index: no history to compare with`] };
  const parse = (text) => (text === null ? null : JSON.parse(text));
  const at = (rev) => parse(git(cwd, "show", `${rev}:${path}`));
  const transitions = [];
  // Before the by-content format nothing is judged; leaving it (prev in
  // it, next not) is judged, and refused.
  const add = (label, prev, next) => {
    if (next.format !== 2 && (prev === null || prev.format !== 2)) return;
    if (next.format === 2 && prev !== null && prev.format !== 2) {
      notes.push(`${label} moved it into the by-content format (judged for new expected non-successes only)`);
    }
    transitions.push({ label, prev, next });
  };
  const working = JSON.parse(readFileSync(file, "utf8"));
  const head = git(cwd, "rev-parse", "--verify", "-q", "HEAD") !== null ? at("HEAD") : null;
  if (JSON.stringify(working) !== JSON.stringify(head)) add("the working tree", head, working);
  const shallow = git(cwd, "rev-parse", "--is-shallow-repository")?.trim() === "true";
  // `path` is from the top of the work tree, as `git show REV:path` reads it.
  const commits = (git(cwd, "log", "--format=%H %s", "--", `:(top)${path}`) ?? "").split("\n").filter(Boolean);
  for (const line of commits) {
    const [commit] = line.split(" ");
    const label = `${commit.slice(0, 12)} (${line.slice(41, 101)})`;
    const next = at(commit);
    if (next === null) continue; // the commit deleted the file
    let prev = null;
    if (git(cwd, "rev-parse", "--verify", "-q", `${commit}^`) !== null) {
      prev = at(`${commit}^`);
    } else if (shallow) {
      notes.push(`shallow clone: the version before ${label} is not here; history before it was not compared`);
      break;
    }
    add(label, prev, next);
  }
  return { transitions, notes, current: working };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const i = process.argv.indexOf("--baseline");
  const file = i > 0 ? process.argv[i + 1] : undefined;
  if (!file) {
    console.error("shrink: missing --baseline FILE");
    process.exit(2);
  }
  const { transitions, notes, current } = history(file);
  let refused = 0;
  for (const t of transitions) {
    const verdict = judge(t.prev, t.next, current);
    for (const g of verdict.accepted) console.log(`[shrink] ${basename(file)} grew at ${t.label}: ${g.check}: ${g.what}; why: ${g.why}`);
    for (const g of verdict.refused) {
      console.error(`[shrink] ${basename(file)} grew at ${t.label} with no reason: ${g.check}: ${g.what} (give the entry a new "why")`);
      refused++;
    }
  }
  for (const n of notes) console.log(`[shrink] ${basename(file)}: ${n}`);
  console.log(`[shrink] ${basename(file)}: ${transitions.length} version(s) compared with the one before, ${refused} unexplained growth(s)`);
  process.exit(refused ? 1 : 0);
}
