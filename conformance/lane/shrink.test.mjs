// A baseline only grows with a reason: growth is judged on literal baselines,
// then on real git histories (commits, working tree, shallow clone).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { growth, judge } from "./shrink.mjs";

const here = dirname(fileURLToPath(import.meta.url));

const ALLOW_CONTENT = { definition: "CallToolResult", instancePath: "", error: "must have required property 'content'", of: "tools/call", resultIs: "CreateTaskResult" };
const ALLOW_META = { definition: "CallToolResult", instancePath: "/_meta", error: "must be object", of: "tools/call" };
const before = {
  requirements: "2026-07-28",
  format: 2,
  scenarios: {
    "tasks-lifecycle": {
      scored: false,
      checks: {
        "tasks-lifecycle-get": "SUCCESS",
        "wire-schema-valid": { status: "FAILURE", reason: "harness limitation", why: "recorded", allowedViolations: [ALLOW_CONTENT] },
      },
    },
    "tasks-wire-fields": { scored: false, checks: { "tasks-wire-fields": "SUCCESS", "wire-schema-valid": "SUCCESS" } },
    "tasks-status-notifications": {
      scored: false,
      checks: { "tasks-status-notifications": { status: "SKIPPED", reason: "harness skips it", why: "recorded", message: "Skipped: pending" } },
    },
  },
};
// `before` with one check replaced.
const withCheck = (scenario, check, entry) => ({
  ...before,
  scenarios: { ...before.scenarios, [scenario]: { ...before.scenarios[scenario], checks: { ...before.scenarios[scenario].checks, [check]: entry } } },
});

test("the same baseline, or a smaller one, has no growth", () => {
  assert.deepEqual(growth(before, before), []);
  assert.deepEqual(growth(before, withCheck("tasks-lifecycle", "wire-schema-valid", "SUCCESS")), []);
});

test("a SUCCESS turned expected FAILURE without a why is refused", () => {
  const next = withCheck("tasks-wire-fields", "wire-schema-valid", { status: "FAILURE", reason: "harness limitation", allowedViolations: [ALLOW_CONTENT] });
  const { accepted, refused } = judge(before, next);
  assert.deepEqual(accepted, []);
  assert.deepEqual(refused, [{ check: "tasks-wire-fields:wire-schema-valid", what: "new expected FAILURE", why: null }]);
});

test("the same growth with a why is accepted and carries it", () => {
  const next = withCheck("tasks-wire-fields", "wire-schema-valid", { status: "FAILURE", reason: "harness limitation", why: "the runner now validates tasks/get", allowedViolations: [ALLOW_CONTENT] });
  const { accepted, refused } = judge(before, next);
  assert.deepEqual(refused, []);
  assert.deepEqual(accepted, [{ check: "tasks-wire-fields:wire-schema-valid", what: "new expected FAILURE", why: "the runner now validates tasks/get" }]);
});

test("a widened allowance needs a new why; the old why does not do", () => {
  const widened = (why) => withCheck("tasks-lifecycle", "wire-schema-valid", { status: "FAILURE", reason: "harness limitation", why, allowedViolations: [ALLOW_CONTENT, ALLOW_META] });
  const refused = judge(before, widened("recorded")).refused;
  assert.equal(refused.length, 1);
  assert.match(refused[0].what, /newly allows CallToolResult\/_meta: must be object/);
  assert.equal(judge(before, widened(undefined)).refused.length, 1);
  assert.equal(judge(before, widened("runner 0.2.1 checks _meta")).refused.length, 0);
  // Narrowing an allowance, or dropping its resultIs, is different content: dropping resultIs widens.
  const { resultIs, ...anyResult } = ALLOW_CONTENT;
  const loosened = withCheck("tasks-lifecycle", "wire-schema-valid", { status: "FAILURE", reason: "harness limitation", allowedViolations: [anyResult] });
  assert.equal(judge(before, loosened).refused.length, 1);
});

test("a changed expected message or status is growth", () => {
  const msg = withCheck("tasks-status-notifications", "tasks-status-notifications", { status: "SKIPPED", reason: "harness skips it", message: "Skipped: anything" });
  assert.match(judge(before, msg).refused[0].what, /expected message changed/);
  const status = withCheck("tasks-status-notifications", "tasks-status-notifications", { status: "FAILURE", reason: "harness skips it", message: "Skipped: pending" });
  assert.match(judge(before, status).refused[0].what, /expected SKIPPED became expected FAILURE/);
});

test("against the empty baseline every expected non-success is growth", () => {
  assert.deepEqual(growth(null, before).map((g) => g.what), ["new expected FAILURE", "new expected SKIPPED"]);
  const { why, ...noWhy } = before.scenarios["tasks-lifecycle"].checks["wire-schema-valid"];
  assert.equal(judge(null, withCheck("tasks-lifecycle", "wire-schema-valid", noWhy)).refused.length, 1);
});

test("against a baseline from before the by-content format only new statuses count; leaving the format is refused", () => {
  const old = { requirements: "2026-07-28", scenarios: { "tasks-lifecycle": { checks: { "wire-schema-valid": { status: "FAILURE", reason: "r" } } } } };
  assert.deepEqual(growth(old, before), [{ check: "tasks-status-notifications:tasks-status-notifications", what: "new expected SKIPPED", why: "recorded" }]);
  const { format, ...unformatted } = before;
  assert.match(judge(before, unformatted).refused[0].what, /leaves the by-content format/);
});

test("a why given later in the current baseline accepts an earlier growth; a growth removed since is not held against it", () => {
  const grown = withCheck("tasks-wire-fields", "wire-schema-valid", { status: "FAILURE", reason: "r", allowedViolations: [ALLOW_CONTENT] });
  const explained = withCheck("tasks-wire-fields", "wire-schema-valid", { status: "FAILURE", reason: "r", why: "late reason", allowedViolations: [ALLOW_CONTENT] });
  assert.equal(judge(before, grown, explained).accepted[0].why, "late reason (given later)");
  assert.deepEqual(judge(before, grown, before), { accepted: [], refused: [] });
});

// Real histories: a scratch repository, one commit per baseline version.
function repo() {
  const dir = mkdtempSync(join(tmpdir(), "shrink-"));
  const git = (...args) => {
    const r = spawnSync("git", ["-c", "user.name=lane", "-c", "user.email=lane@example.invalid", "-c", "commit.gpgsign=false", ...args], { cwd: dir, encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout;
  };
  git("init", "-q", "-b", "main");
  // Where the repository keeps it: a folder below the top, as conformance/ is.
  mkdirSync(join(dir, "conformance"));
  const commit = (baseline, message) => {
    writeFileSync(join(dir, "conformance", "baseline.json"), JSON.stringify(baseline, null, 2) + "\n");
    git("add", "conformance/baseline.json");
    git("commit", "-q", "-m", message);
  };
  // Run from the top, with a relative path, as conformance/run's caller may.
  const shrink = (top = dir) => {
    const r = spawnSync(process.execPath, [join(here, "shrink.mjs"), "--baseline", "conformance/baseline.json"], { cwd: top, encoding: "utf8" });
    return { status: r.status, out: r.stdout + r.stderr };
  };
  return { dir, git, commit, shrink };
}
const grownNoWhy = withCheck("tasks-wire-fields", "wire-schema-valid", { status: "FAILURE", reason: "r", allowedViolations: [ALLOW_CONTENT] });

test("history: a commit that adds an expected FAILURE without a why fails, even under later commits", () => {
  const r = repo();
  r.commit(before, "first");
  assert.equal(r.shrink().status, 0);
  r.commit(grownNoWhy, "hand-edit a SUCCESS to expected FAILURE");
  const now = r.shrink();
  assert.equal(now.status, 1);
  assert.match(now.out, /grew at [0-9a-f]{12} \(hand-edit a SUCCESS to expected FAILURE\) with no reason: tasks-wire-fields:wire-schema-valid: new expected FAILURE/);
  // A later commit that changes something else does not bury it.
  r.commit({ ...grownNoWhy, scenarios: { ...grownNoWhy.scenarios, extra: { checks: { e: "SUCCESS" } } } }, "unrelated");
  assert.equal(r.shrink().status, 1);
});

test("history: with a why the same growth passes and the why is printed; an uncommitted growth is judged too", () => {
  const r = repo();
  r.commit(before, "first");
  r.commit(withCheck("tasks-wire-fields", "wire-schema-valid", { status: "FAILURE", reason: "r", why: "runner 0.2.1 validates this too", allowedViolations: [ALLOW_CONTENT] }), "grow with a reason");
  const now = r.shrink();
  assert.equal(now.status, 0, now.out);
  assert.match(now.out, /grew at [0-9a-f]{12} \(grow with a reason\): tasks-wire-fields:wire-schema-valid: new expected FAILURE; why: runner 0\.2\.1 validates this too/);
  writeFileSync(join(r.dir, "conformance", "baseline.json"), JSON.stringify(withCheck("tasks-lifecycle", "wire-schema-valid", { status: "FAILURE", reason: "harness limitation", allowedViolations: [ALLOW_CONTENT, ALLOW_META] })));
  const dirty = r.shrink();
  assert.equal(dirty.status, 1);
  assert.match(dirty.out, /grew at the working tree with no reason: tasks-lifecycle:wire-schema-valid: newly allows/);
});

test("history: leaving the by-content format and coming back is refused", () => {
  const r = repo();
  r.commit(before, "first");
  const { format, ...unformatted } = before;
  r.commit(unformatted, "drop the format");
  r.commit(grownNoWhy, "back, grown");
  const now = r.shrink();
  assert.equal(now.status, 1);
  assert.match(now.out, /drop the format\) with no reason: \(file\): leaves the by-content format/);
});

test("history: a shallow clone compares what it has and says where it stops", () => {
  const r = repo();
  r.commit(before, "first");
  r.commit(grownNoWhy, "grown without a reason");
  r.commit({ ...grownNoWhy, scenarios: { ...grownNoWhy.scenarios, extra: { checks: { e: "SUCCESS" } } } }, "unrelated");
  const clone = mkdtempSync(join(tmpdir(), "shrink-shallow-"));
  const c = spawnSync("git", ["clone", "-q", "--depth", "1", `file://${r.dir}`, clone], { encoding: "utf8" });
  assert.equal(c.status, 0, c.stderr);
  const now = r.shrink(clone);
  assert.equal(now.status, 0, now.out);
  assert.match(now.out, /shallow clone: the version before [0-9a-f]{12} \(unrelated\) is not here/);
  // Deep enough to see the growth: refused.
  const deeper = mkdtempSync(join(tmpdir(), "shrink-shallow-"));
  assert.equal(spawnSync("git", ["clone", "-q", "--depth", "3", `file://${r.dir}`, deeper]).status, 0);
  assert.equal(r.shrink(deeper).status, 1);
});

test("outside a git checkout there is nothing to compare, and it says so", () => {
  const dir = mkdtempSync(join(tmpdir(), "shrink-nogit-"));
  writeFileSync(join(dir, "baseline.json"), JSON.stringify(before));
  const r = spawnSync(process.execPath, [join(here, "shrink.mjs"), "--baseline", join(dir, "baseline.json")], { cwd: dir, encoding: "utf8", env: { ...process.env, GIT_CEILING_DIRECTORIES: dirname(dir) } });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /not in a git checkout's index/);
});
