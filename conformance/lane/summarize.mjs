// Summarize one conformance run and hold it against the per-check baseline.
//
// Usage: node summarize.mjs --raw DIR --requirements FILE --revision REV
//                           --baseline FILE --runtime NAME --out DIR
//                           [--leg server|client] [--accept-improvements]
//
// REV is the requirement set's revision (2026-07-28, 2025-11-25): FILE is its
// requirements/REV.yaml and the baseline must be the one recorded for REV
// (its "requirements" field; a baseline that names another revision is
// refused). --leg (default server) picks the requirement file's list: the
// `server` subcommand's or the `client` subcommand's, whose snodo side is
// the conformance client binary. Reads every checks.json under DIR (one per scenario, written by
// the official runner with -o), writes summary.json and summary.md to --out,
// and exits non-zero when the run differs from the baseline in any way:
//   - a check that is not SUCCESS/INFO and not expected (regression),
//   - an expected non-success that now passes (stale entry: remove it),
//   - a check that appeared, disappeared, or changed status,
//   - an expected non-success whose content is not the expected one: a
//     `wire-schema-valid` FAILURE with a violation its `allowedViolations`
//     do not cover (violations.mjs), any other check whose message is not
//     the entry's `message` word for word.
// Baselines are by content (`"format": 2`): an expected non-success that
// names no content is refused. That a baseline only grows with a reason is
// shrink.mjs's job (conformance/run runs it first).
// --accept-improvements rewrites the baseline with stale entries removed and
// new SUCCESS/INFO checks added; it never adds a non-success, so the baseline
// can only shrink and never raises a score.

import { readFileSync, writeFileSync, readdirSync, statSync, mkdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { allowanceProblems, disallowedViolations } from "./violations.mjs";

const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => {
    if (a.startsWith("--")) acc.push([a.slice(2), all[i + 1] && !all[i + 1].startsWith("--") ? all[i + 1] : true]);
    return acc;
  }, []),
);
for (const k of ["raw", "requirements", "revision", "baseline", "runtime", "out"]) {
  if (!args[k]) {
    console.error(`summarize: missing --${k}`);
    process.exit(2);
  }
}

const revision = args.revision;
const leg = args.leg ?? "server";
if (leg !== "server" && leg !== "client") {
  console.error(`summarize: --leg is server or client, got ${leg}`);
  process.exit(2);
}
if (!/^\d{4}-\d{2}-\d{2}$/.test(revision)) {
  console.error(`summarize: --revision must be a dated revision like 2026-07-28, got ${revision}`);
  process.exit(2);
}

// The requirement file's list for `leg` (`server:` or `client:`) and its
// `not_scored` entries whose `leg` is that one. Both pinned files (2026-07-28, 2025-11-25) have this shape
// and are pinned by SHA-256 before this runs, so a line reader suffices.
function readRequirements(path) {
  const scored = [];
  const notScored = [];
  let section = null;
  let pending = null;
  for (const line of readFileSync(path, "utf8").split("\n")) {
    const top = line.match(/^([a-z_]+):/);
    if (top) {
      section = top[1];
      continue;
    }
    if (section === leg) {
      const m = line.match(/^\s+-\s+([A-Za-z0-9_./-]+)\s*$/);
      if (m) scored.push(m[1]);
    } else if (section === "not_scored") {
      const s = line.match(/^\s+-\s+scenario:\s+(\S+)/);
      if (s) pending = { scenario: s[1] };
      const l = line.match(/^\s+leg:\s+(\S+)/);
      if (l && pending) {
        if (l[1] === leg) notScored.push(pending.scenario);
        pending = null;
      }
    }
  }
  return { scored, notScored };
}

function findChecks(dir) {
  const out = [];
  for (const entry of readdirSync(dir)) {
    const p = join(dir, entry);
    if (statSync(p).isDirectory()) out.push(...findChecks(p));
    else if (entry === "checks.json") out.push(p);
  }
  return out;
}

// Result folders are named `server-<scenario>-<timestamp>` by the server
// leg and `<scenario>-<timestamp>` by the client leg, whose scenario names
// may hold a slash (`auth/metadata-default`: a folder `auth/` holding
// `metadata-default-<timestamp>`).
function scenarioOf(path) {
  const folder = relative(args.raw, join(path, "..")).split(sep).join("/");
  const name = leg === "server" ? folder.replace(/^server-/, "") : folder;
  return name.replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, "");
}

const { scored, notScored } = readRequirements(args.requirements);
const results = {};
for (const file of findChecks(args.raw)) {
  const scenario = scenarioOf(file);
  const checks = JSON.parse(readFileSync(file, "utf8"));
  // Repeated ids (one check per probe) are told apart by occurrence.
  const seen = {};
  results[scenario] = checks.map((c) => {
    seen[c.id] = (seen[c.id] ?? 0) + 1;
    const key = seen[c.id] > 1 ? `${c.id}#${seen[c.id]}` : c.id;
    return { key, id: c.id, status: c.status, message: c.errorMessage ?? c.message ?? "", details: c.details };
  });
}

const baseline = JSON.parse(readFileSync(args.baseline, "utf8"));
if (baseline.requirements !== undefined && baseline.requirements !== revision) {
  console.error(`summarize: ${args.baseline} is the baseline for ${baseline.requirements}, not ${revision}; refusing to compare`);
  process.exit(2);
}
if (baseline.format !== 2) {
  console.error(`summarize: ${args.baseline} is not a by-content baseline ("format": 2); every expected non-success must name what may fail inside it (conformance/README.md)`);
  process.exit(2);
}
const problems = [];
const expected = baseline.scenarios ?? {};
const ok = (s) => s === "SUCCESS" || s === "INFO";
const statusOf = (entry) => (typeof entry === "string" ? entry : entry?.status);

for (const scenario of [...scored, ...notScored]) {
  if (!results[scenario]) problems.push(`${scenario}: no results (scenario did not run)`);
}
// An expected non-success matches only by content: what the run reported
// inside the check must be what the entry names.
function contentProblems(check, want) {
  if (typeof want !== "object" || want === null) {
    return [`expected ${want} names no content: give it "allowedViolations" (wire-schema-valid) or "message"`];
  }
  if (check.id === "wire-schema-valid") {
    const shape = allowanceProblems(want.allowedViolations);
    return shape.length ? shape : disallowedViolations(check.details, want.allowedViolations);
  }
  if (typeof want.message !== "string") return [`expected ${want.status} names no "message"`];
  return want.message === check.message ? [] : [`message differs from the baseline's: got ${JSON.stringify(check.message)}`];
}

for (const [scenario, checks] of Object.entries(results)) {
  const base = expected[scenario]?.checks ?? {};
  const got = new Map(checks.map((c) => [c.key, c]));
  for (const c of checks) {
    const want = base[c.key];
    if (want === undefined) {
      problems.push(`${scenario}:${c.key}: appeared with status ${c.status}${ok(c.status) ? "" : ` (${c.message})`}`);
    } else if (statusOf(want) !== c.status) {
      const kind = ok(c.status) ? "stale baseline entry (now passes)" : ok(statusOf(want)) ? "regression" : "changed status";
      problems.push(`${scenario}:${c.key}: ${kind}: expected ${statusOf(want)}, got ${c.status}${ok(c.status) ? "" : ` (${c.message})`}`);
    } else if (!ok(c.status)) {
      for (const p of contentProblems(c, want)) problems.push(`${scenario}:${c.key}: ${p}`);
    }
  }
  for (const key of Object.keys(base)) {
    if (!got.has(key)) problems.push(`${scenario}:${key}: disappeared (expected ${statusOf(base[key])})`);
  }
}
for (const scenario of Object.keys(expected)) {
  if (!results[scenario]) problems.push(`${scenario}: in the baseline but not run`);
}

// Tallies.
const tally = (checks) => checks.reduce((t, c) => ((t[c.status] = (t[c.status] ?? 0) + 1), t), {});
const clean = (s) => (results[s] ?? []).length > 0 && results[s].every((c) => ok(c.status));
const totals = tally(scored.flatMap((s) => results[s] ?? []));
const summary = {
  requirements: revision,
  ...(leg === "client" ? { leg } : {}),
  runtime: args.runtime,
  scored: {
    total: scored.length,
    passed: scored.filter(clean).length,
    checks: totals,
    failing: scored.filter((s) => !clean(s)),
  },
  notScored: Object.fromEntries(notScored.map((s) => [s, { clean: clean(s), checks: tally(results[s] ?? []) }])),
  baseline: { problems },
};
mkdirSync(args.out, { recursive: true });
writeFileSync(join(args.out, "summary.json"), JSON.stringify(summary, null, 2) + "\n");

const fmt = (t) => ["SUCCESS", "FAILURE", "WARNING", "SKIPPED", "INFO"].map((k) => t[k] ?? 0).join(" | ");
let md = `# Conformance summary: ${args.runtime}${leg === "client" ? " (client leg)" : ""}\n\n`;
md += `Requirements ${revision} (runner @modelcontextprotocol/conformance@0.2.0-alpha.11).\n\n`;
md += `**Scored scenarios passed with no FAILURE, WARNING or SKIPPED check: ${summary.scored.passed} / ${summary.scored.total}**\n\n`;
md += `| scenario | scored | SUCCESS | FAILURE | WARNING | SKIPPED | INFO |\n|---|---|---:|---:|---:|---:|---:|\n`;
for (const s of scored) md += `| ${s} | yes | ${fmt(tally(results[s] ?? []))} |\n`;
for (const s of notScored) md += `| ${s} | no | ${fmt(tally(results[s] ?? []))} |\n`;
md += `\nScored check totals: ${Object.entries(totals).map(([k, v]) => `${k} ${v}`).join(", ")}\n`;
function allowedInside(entry) {
  if (Array.isArray(entry?.allowedViolations)) {
    return entry.allowedViolations
      .map((a) => `\`${a.definition}${a.instancePath}: ${a.error}\` (result of \`${a.of}\`)${a.resultIs ? `, only when the result is a valid \`${a.resultIs}\`` : ""}`)
      .join("; ");
  }
  return typeof entry?.message === "string" ? `message: ${entry.message}` : "";
}
const expectedNonSuccess = Object.entries(expected).flatMap(([s, e]) =>
  Object.entries(e.checks ?? {}).filter(([, v]) => !ok(statusOf(v))).map(([k, v]) => `| ${s} | ${k} | ${statusOf(v)} | ${allowedInside(v)} | ${v.reason ?? ""} |`),
);
md += `\n## Expected non-successes (baseline)\n\n`;
md += expectedNonSuccess.length ? `| scenario | check | status | may fail inside it | reason |\n|---|---|---|---|---|\n${expectedNonSuccess.join("\n")}\n` : "None.\n";
md += `\n## Baseline comparison\n\n${problems.length ? problems.map((p) => `- ${p}`).join("\n") : "Matches the baseline exactly."}\n`;
writeFileSync(join(args.out, "summary.md"), md);

if (args["accept-improvements"]) {
  const next = { requirements: revision, format: 2, scenarios: {} };
  for (const [scenario, checks] of Object.entries(results)) {
    const base = expected[scenario]?.checks ?? {};
    const out = {};
    for (const c of checks) {
      const want = base[c.key];
      if (ok(c.status)) out[c.key] = c.status;
      else if (want !== undefined && statusOf(want) === c.status) out[c.key] = want;
      else {
        console.error(`refusing to add a non-success to the baseline: ${scenario}:${c.key} ${c.status}`);
        process.exitCode = 1;
      }
    }
    next.scenarios[scenario] = { scored: scored.includes(scenario), checks: out };
  }
  writeFileSync(args.baseline, JSON.stringify(next, null, 2) + "\n");
}

console.log(`[${args.runtime} ${revision}] scored scenarios clean: ${summary.scored.passed}/${summary.scored.total}; checks ${fmt(totals)} (SUCCESS|FAILURE|WARNING|SKIPPED|INFO)`);
if (problems.length) {
  console.log(`[${args.runtime} ${revision}] baseline differences:\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
console.log(`[${args.runtime} ${revision}] matches the baseline`);
