// The baseline comparison must fail on every kind of difference. Each case
// writes a fabricated runner output and baseline and runs summarize.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

const REQUIREMENTS = `server:\n  - alpha\n  - beta\nnot_scored:\n  - scenario: gamma\n    leg: server\n    reason: pending\n  - scenario: delta\n    leg: client\n    reason: pending\n`;

function run(results, baseline, extra = []) {
  const dir = mkdtempSync(join(tmpdir(), "lane-"));
  for (const [scenario, checks] of Object.entries(results)) {
    const d = join(dir, "raw", `server-${scenario}-2026-11-30T01-02-03-456Z`);
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, "checks.json"), JSON.stringify(checks.map(([id, status]) => ({ id, status, errorMessage: "x" }))));
  }
  writeFileSync(join(dir, "req.yaml"), REQUIREMENTS);
  writeFileSync(join(dir, "baseline.json"), JSON.stringify(baseline));
  const r = spawnSync(process.execPath, [join(here, "summarize.mjs"), "--raw", join(dir, "raw"), "--requirements", join(dir, "req.yaml"), "--baseline", join(dir, "baseline.json"), "--runtime", "test", "--out", join(dir, "out"), ...extra], { encoding: "utf8" });
  return { status: r.status, out: r.stdout + r.stderr, dir };
}

const ok = { alpha: [["a1", "SUCCESS"], ["a1", "SUCCESS"]], beta: [["b1", "FAILURE"]], gamma: [["g1", "SUCCESS"]] };
const base = {
  scenarios: {
    alpha: { checks: { a1: "SUCCESS", "a1#2": "SUCCESS" } },
    beta: { checks: { b1: { status: "FAILURE", reason: "not yet" } } },
    gamma: { checks: { g1: "SUCCESS" } },
  },
};

test("identical run passes and counts clean scored scenarios", () => {
  const r = run(ok, base);
  assert.equal(r.status, 0, r.out);
  const summary = JSON.parse(readFileSync(join(r.dir, "out", "summary.json"), "utf8"));
  assert.equal(summary.scored.passed, 1);
  assert.equal(summary.scored.total, 2);
  assert.deepEqual(summary.scored.failing, ["beta"]);
});

test("regression fails", () => {
  const r = run({ ...ok, alpha: [["a1", "SUCCESS"], ["a1", "WARNING"]] }, base);
  assert.equal(r.status, 1);
  assert.match(r.out, /alpha:a1#2: regression/);
});

test("stale baseline entry fails", () => {
  const r = run({ ...ok, beta: [["b1", "SUCCESS"]] }, base);
  assert.equal(r.status, 1);
  assert.match(r.out, /beta:b1: stale baseline entry/);
});

test("appeared, disappeared and missing scenarios fail", () => {
  assert.match(run({ ...ok, gamma: [["g1", "SUCCESS"], ["g2", "SUCCESS"]] }, base).out, /gamma:g2: appeared/);
  assert.match(run({ ...ok, alpha: [["a1", "SUCCESS"]] }, base).out, /alpha:a1#2: disappeared/);
  const { gamma, ...noGamma } = ok;
  const r = run(noGamma, base);
  assert.equal(r.status, 1);
  assert.match(r.out, /gamma: no results/);
});

test("changed non-success status fails", () => {
  const r = run({ ...ok, beta: [["b1", "WARNING"]] }, base);
  assert.equal(r.status, 1);
  assert.match(r.out, /beta:b1: changed status/);
});

test("accept-improvements shrinks the baseline and never adds a non-success", () => {
  const r = run({ ...ok, beta: [["b1", "SUCCESS"]] }, base, ["--accept-improvements"]);
  const next = JSON.parse(readFileSync(join(r.dir, "baseline.json"), "utf8"));
  assert.equal(next.scenarios.beta.checks.b1, "SUCCESS");
  const worse = run({ ...ok, alpha: [["a1", "FAILURE"], ["a1", "SUCCESS"]] }, base, ["--accept-improvements"]);
  assert.equal(worse.status, 1);
  assert.match(worse.out, /refusing to add a non-success/);
  const kept = JSON.parse(readFileSync(join(worse.dir, "baseline.json"), "utf8"));
  assert.equal(kept.scenarios.alpha.checks.a1, undefined);
});
