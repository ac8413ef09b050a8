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

// The 2025-11-25 file's shape: a comment header, `server:`, a `client:` list
// (scenario names with slashes), and `not_scored:` entries for both legs,
// some with a folded `note: >-`. Only server-leg entries count here.
const REQUIREMENTS_2025 = `# Conformance requirements for the 2025-11-25 specification revision.
#
# server: and not_scored: in a comment are not sections.

server:
  - server-initialize
  - ping
  - tools-list

client:
  - initialize
  - auth/metadata-default

not_scored:
  - scenario: auth/client-credentials-jwt
    leg: client
    reason: extension
  - scenario: server-session-lifecycle
    leg: server
    reason: added-after-release
  - scenario: json-schema-2020-12-preservation
    leg: client
    reason: added-after-release
  - scenario: server-sse-polling
    leg: server
    reason: pending
    note: >-
      on hold pending server-side SSE improvements in the reference fixture
`;

function run(results, baseline, extra = [], { requirements = REQUIREMENTS, revision = "2026-07-28" } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "lane-"));
  for (const [scenario, checks] of Object.entries(results)) {
    const d = join(dir, "raw", `server-${scenario}-2026-11-30T01-02-03-456Z`);
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, "checks.json"), JSON.stringify(checks.map(([id, status]) => ({ id, status, errorMessage: "x" }))));
  }
  writeFileSync(join(dir, "req.yaml"), requirements);
  writeFileSync(join(dir, "baseline.json"), JSON.stringify(baseline));
  const r = spawnSync(process.execPath, [join(here, "summarize.mjs"), "--raw", join(dir, "raw"), "--requirements", join(dir, "req.yaml"), "--revision", revision, "--baseline", join(dir, "baseline.json"), "--runtime", "test", "--out", join(dir, "out"), ...extra], { encoding: "utf8" });
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

const ok2025 = {
  "server-initialize": [["server-initialize", "SUCCESS"]],
  ping: [["ping", "SUCCESS"]],
  "tools-list": [["tools-list", "SUCCESS"], ["wire-schema-valid", "SUCCESS"]],
  "server-session-lifecycle": [["session-id", "SUCCESS"]],
  "server-sse-polling": [["outgoing-request", "INFO"], ["server-sse-content-type", "INFO"]],
};
const opts2025 = { requirements: REQUIREMENTS_2025, revision: "2025-11-25" };

test("2025-11-25 shape: scored is the server list, not-scored only the server legs", () => {
  const r = run(ok2025, { requirements: "2025-11-25", scenarios: {} }, ["--accept-improvements"], opts2025);
  assert.equal(r.status, 1, r.out); // every check appeared; the baseline is written anyway
  const summary = JSON.parse(readFileSync(join(r.dir, "out", "summary.json"), "utf8"));
  assert.equal(summary.requirements, "2025-11-25");
  assert.equal(summary.scored.total, 3);
  assert.equal(summary.scored.passed, 3);
  assert.deepEqual(Object.keys(summary.notScored), ["server-session-lifecycle", "server-sse-polling"]);
  assert.equal(summary.notScored["server-sse-polling"].clean, true);
  assert.match(readFileSync(join(r.dir, "out", "summary.md"), "utf8"), /Requirements 2025-11-25 /);
  const next = JSON.parse(readFileSync(join(r.dir, "baseline.json"), "utf8"));
  assert.equal(next.requirements, "2025-11-25");
  assert.equal(next.scenarios["server-sse-polling"].scored, false);
  assert.equal(next.scenarios["server-sse-polling"].checks["outgoing-request"], "INFO");
  assert.equal(next.scenarios["tools-list"].scored, true);
  // The accepted baseline then matches the same run exactly.
  const again = run(ok2025, next, [], opts2025);
  assert.equal(again.status, 0, again.out);
  assert.match(again.out, /\[test 2025-11-25\] matches the baseline/);
});

test("2025-11-25: a missing server-leg not-scored scenario fails, a client-leg one is not expected", () => {
  const { "server-sse-polling": _, ...noPolling } = ok2025;
  const base2025 = run(ok2025, { requirements: "2025-11-25", scenarios: {} }, ["--accept-improvements"], opts2025);
  const next = JSON.parse(readFileSync(join(base2025.dir, "baseline.json"), "utf8"));
  const r = run(noPolling, next, [], opts2025);
  assert.equal(r.status, 1);
  assert.match(r.out, /server-sse-polling: no results/);
  assert.doesNotMatch(r.out, /auth\/client-credentials-jwt|json-schema-2020-12-preservation|initialize: no results/);
});

test("a baseline recorded for another revision is refused", () => {
  const r = run(ok, { ...base, requirements: "2026-07-28" }, [], { revision: "2025-11-25" });
  assert.equal(r.status, 2);
  assert.match(r.out, /baseline for 2026-07-28, not 2025-11-25/);
  const bad = run(ok, base, [], { revision: "latest" });
  assert.equal(bad.status, 2);
});
