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

function run(results, baseline, extra = [], { requirements = REQUIREMENTS, revision = "2026-07-28", leg = "server" } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "lane-"));
  for (const [scenario, checks] of Object.entries(results)) {
    const folder = leg === "server" ? `server-${scenario}` : scenario;
    const d = join(dir, "raw", `${folder}-2026-11-30T01-02-03-456Z`);
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, "checks.json"), JSON.stringify(checks.map(([id, status, extra]) => ({ id, status, errorMessage: "x", ...extra }))));
  }
  writeFileSync(join(dir, "req.yaml"), requirements);
  writeFileSync(join(dir, "baseline.json"), JSON.stringify(baseline));
  const r = spawnSync(process.execPath, [join(here, "summarize.mjs"), "--raw", join(dir, "raw"), "--requirements", join(dir, "req.yaml"), "--revision", revision, "--baseline", join(dir, "baseline.json"), "--runtime", "test", "--out", join(dir, "out"), "--leg", leg, ...extra], { encoding: "utf8" });
  return { status: r.status, out: r.stdout + r.stderr, dir };
}

const ok = { alpha: [["a1", "SUCCESS"], ["a1", "SUCCESS"]], beta: [["b1", "FAILURE"]], gamma: [["g1", "SUCCESS"]] };
const base = {
  format: 2,
  scenarios: {
    alpha: { checks: { a1: "SUCCESS", "a1#2": "SUCCESS" } },
    beta: { checks: { b1: { status: "FAILURE", reason: "not yet", message: "x" } } },
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
  const r = run(ok2025, { requirements: "2025-11-25", format: 2, scenarios: {} }, ["--accept-improvements"], opts2025);
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
  const base2025 = run(ok2025, { requirements: "2025-11-25", format: 2, scenarios: {} }, ["--accept-improvements"], opts2025);
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

// By content: an expected non-success names what may fail inside it.

test("a baseline that is not by content is refused", () => {
  const { format, ...old } = base;
  const r = run(ok, old);
  assert.equal(r.status, 2);
  assert.match(r.out, /not a by-content baseline/);
});

test("an expected non-success that names no content fails", () => {
  const r = run(ok, { ...base, scenarios: { ...base.scenarios, beta: { checks: { b1: { status: "FAILURE", reason: "not yet" } } } } });
  assert.equal(r.status, 1);
  assert.match(r.out, /beta:b1: expected FAILURE names no "message"/);
  const bare = run(ok, { ...base, scenarios: { ...base.scenarios, beta: { checks: { b1: "FAILURE" } } } });
  assert.equal(bare.status, 1);
  assert.match(bare.out, /beta:b1: expected FAILURE names no content/);
});

test("an expected non-success with another message fails", () => {
  const r = run({ ...ok, beta: [["b1", "FAILURE", { errorMessage: "a different failure" }]] }, base);
  assert.equal(r.status, 1);
  assert.match(r.out, /beta:b1: message differs from the baseline's: got "a different failure"/);
});

// A CreateTaskResult as the runner saw it (tasks.md § Task Creation), and the
// error string the runner writes when it reads it as a CallToolResult.
const CREATE_TASK = {
  jsonrpc: "2.0",
  id: 7,
  result: {
    _meta: { "io.modelcontextprotocol/serverInfo": { name: "snodo-fixture", version: "0.1.0" } },
    createdAt: "2026-11-30T01:02:03.456Z",
    lastUpdatedAt: "2026-11-30T01:02:03.456Z",
    pollIntervalMs: 500,
    resultType: "task",
    status: "working",
    taskId: "b3a0921a3fd916ac",
    ttlMs: 60000,
  },
};
const NO_CONTENT = "CallToolResult: must have required property 'content' (result of 'tools/call')";
const violation = (message, ...errors) => ({ origin: "implementation", specVersion: "2026-07-28", context: "response to 'tools/call'", errors, message });
const wire = (...violations) => ["wire-schema-valid", "FAILURE", { errorMessage: "x", details: { messagesValidated: 9, violations } }];
const tasksBase = {
  format: 2,
  scenarios: {
    ...base.scenarios,
    gamma: {
      checks: {
        g1: "SUCCESS",
        "wire-schema-valid": {
          status: "FAILURE",
          reason: "the runner reads a CreateTaskResult as a CallToolResult",
          allowedViolations: [{ definition: "CallToolResult", instancePath: "", error: "must have required property 'content'", of: "tools/call", resultIs: "CreateTaskResult" }],
        },
      },
    },
  },
};
const gammaWith = (...violations) => ({ ...ok, gamma: [["g1", "SUCCESS"], wire(...violations)] });

test("wire-schema-valid: violations the baseline allows pass", () => {
  const r = run(gammaWith(violation(CREATE_TASK, NO_CONTENT), violation({ ...CREATE_TASK, id: 8 }, NO_CONTENT)), tasksBase);
  assert.equal(r.status, 0, r.out);
  assert.match(readFileSync(join(r.dir, "out", "summary.md"), "utf8"), /`CallToolResult: must have required property 'content'` \(result of `tools\/call`\), only when the result is a valid `CreateTaskResult`/);
});

test("wire-schema-valid: any other violation in the same check fails", () => {
  // A Tasks answer with a field of the wrong type: a second error string in
  // the same message, at another instance path.
  const bad = { ...CREATE_TASK, result: { ...CREATE_TASK.result, _meta: 5 } };
  const r = run(gammaWith(violation(CREATE_TASK, NO_CONTENT), violation(bad, NO_CONTENT, "CallToolResult/_meta: must be object (result of 'tools/call')")), tasksBase);
  assert.equal(r.status, 1);
  assert.match(r.out, /gamma:wire-schema-valid: violation not allowed by the baseline: CallToolResult\/_meta: must be object \(result of 'tools\/call'\)/);
  // Another message entirely (a notification), same check.
  const note = { jsonrpc: "2.0", method: "notifications/progress", params: { progress: "half" } };
  const r2 = run(gammaWith(violation(CREATE_TASK, NO_CONTENT), violation(note, "ProgressNotification/params/progress: must be number")), tasksBase);
  assert.equal(r2.status, 1);
  assert.match(r2.out, /violation not allowed by the baseline: ProgressNotification\/params\/progress: must be number/);
});

test("wire-schema-valid: the allowed error in a message that is not a CreateTaskResult fails", () => {
  // A plain tool result that lost its content: the same runner error, but not the harness limitation.
  const plain = { jsonrpc: "2.0", id: 9, result: { resultType: "complete", isError: false } };
  const r = run(gammaWith(violation(plain, NO_CONTENT)), tasksBase);
  assert.equal(r.status, 1);
  assert.match(r.out, /violation allowed only for a CreateTaskResult, but result is not a valid CreateTaskResult: \/ must have required property 'taskId'/);
  // A task whose status is not a task status.
  const wrong = { ...CREATE_TASK, result: { ...CREATE_TASK.result, status: "running" } };
  assert.match(run(gammaWith(violation(wrong, NO_CONTENT)), tasksBase).out, /not a valid CreateTaskResult: \/status must be equal to constant/);
});

test("wire-schema-valid: truncated, unparseable or missing violation details fail", () => {
  const truncated = run(gammaWith(violation(CREATE_TASK, NO_CONTENT, "... 3 more error(s)")), tasksBase);
  assert.equal(truncated.status, 1);
  assert.match(truncated.out, /violation not allowed by the baseline: \.\.\. 3 more error\(s\)/);
  const none = run({ ...ok, gamma: [["g1", "SUCCESS"], ["wire-schema-valid", "FAILURE"]] }, tasksBase);
  assert.equal(none.status, 1);
  assert.match(none.out, /gamma:wire-schema-valid: the runner reported no violation details/);
  const empty = { ...tasksBase, scenarios: { ...tasksBase.scenarios, gamma: { checks: { g1: "SUCCESS", "wire-schema-valid": { status: "FAILURE", allowedViolations: [] } } } } };
  assert.match(run(gammaWith(violation(CREATE_TASK, NO_CONTENT)), empty).out, /allowedViolations must be a non-empty list/);
});

// The client leg: the `client:` list and client-leg not_scored entries, and
// result folders without the `server-` prefix, nested for `auth/...` names.
test("client leg reads the client list and nested scenario folders", () => {
  const results = {
    initialize: [["c1", "SUCCESS"]],
    "auth/metadata-default": [["m1", "SUCCESS"]],
    "auth/client-credentials-jwt": [["j1", "FAILURE"]],
    "json-schema-2020-12-preservation": [["p1", "SUCCESS"]],
  };
  const baseline = {
    requirements: "2025-11-25",
    format: 2,
    scenarios: {
      initialize: { checks: { c1: "SUCCESS" } },
      "auth/metadata-default": { checks: { m1: "SUCCESS" } },
      "auth/client-credentials-jwt": { checks: { j1: { status: "FAILURE", message: "x", why: "an extension" } } },
      "json-schema-2020-12-preservation": { checks: { p1: "SUCCESS" } },
    },
  };
  const r = run(results, baseline, [], { requirements: REQUIREMENTS_2025, revision: "2025-11-25", leg: "client" });
  assert.equal(r.status, 0, r.out);
  const summary = JSON.parse(readFileSync(join(r.dir, "out", "summary.json"), "utf8"));
  assert.equal(summary.leg, "client");
  assert.equal(summary.scored.total, 2);
  assert.equal(summary.scored.passed, 2);
  assert.deepEqual(Object.keys(summary.notScored).sort(), ["auth/client-credentials-jwt", "json-schema-2020-12-preservation"]);
});

test("client leg: a scored client scenario that did not run fails", () => {
  const results = { initialize: [["c1", "SUCCESS"]] };
  const baseline = { requirements: "2025-11-25", format: 2, scenarios: { initialize: { checks: { c1: "SUCCESS" } } } };
  const r = run(results, baseline, [], { requirements: REQUIREMENTS_2025, revision: "2025-11-25", leg: "client" });
  assert.equal(r.status, 1, r.out);
  assert.match(r.out, /auth\/metadata-default: no results/);
});

test("an unknown leg is refused", () => {
  const r = run(ok, base, [], { leg: "both" });
  assert.equal(r.status, 2, r.out);
});
