// The released-client interop lane: the published official TypeScript
// client (@modelcontextprotocol/client, pinned in package-lock.json) drives
// snodo-fixture over stdio and Streamable HTTP on every runtime, one fresh
// fixture process per cell, through every step of lib/steps.mjs.
//
//   node interop.mjs --fixture PATH [--transport stdio|http]... [--runtime R]... [--json FILE]
//
// Prints one line per step and cell, then `client-interop: passed/total`;
// exits 1 when any step failed.

import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import { connect } from './lib/fixture.mjs';
import { SESSION_STEPS, STEPS } from './lib/steps.mjs';

/** A step that takes longer than this has hung. */
const STEP_TIMEOUT_MS = 20_000;

const { values } = parseArgs({
  options: {
    fixture: { type: 'string' },
    transport: { type: 'string', multiple: true },
    runtime: { type: 'string', multiple: true },
    json: { type: 'string' },
  },
});
if (!values.fixture) {
  console.error('interop.mjs: --fixture PATH is required');
  process.exit(2);
}
const transports = values.transport ?? ['stdio', 'http'];
const runtimes = values.runtime ?? ['tokio', 'smol', 'blocking', 'hyper'];
// The hyper adapter serves Streamable HTTP only.
const cells = transports.flatMap((t) =>
  runtimes.filter((r) => !(t === 'stdio' && r === 'hyper')).map((r) => [t, r]),
);

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no outcome within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const results = [];

/** One cell: a fresh fixture, a client of `era`, and `steps`. */
async function runCell(transport, runtime, era, steps) {
  const cell = era === 'modern' ? `${transport}/${runtime}` : `${transport}/${runtime} 2025-11-25`;
  let session;
  try {
    session = await withTimeout(connect(values.fixture, transport, runtime, era), STEP_TIMEOUT_MS, 'connect');
  } catch (e) {
    for (const step of steps) {
      results.push({ cell, step: step.name, ok: false, error: `connect failed: ${e.message}` });
      console.log(`FAIL [${cell}] ${step.name}: connect failed: ${e.message}`);
    }
    return;
  }
  for (const step of steps) {
    const started = Date.now();
    try {
      await withTimeout(step.run(session), STEP_TIMEOUT_MS, step.name);
      results.push({ cell, step: step.name, ok: true, ms: Date.now() - started });
      console.log(`ok   [${cell}] ${step.name}`);
    } catch (e) {
      const error = e?.stack ?? String(e);
      results.push({ cell, step: step.name, ok: false, ms: Date.now() - started, error });
      console.log(`FAIL [${cell}] ${step.name}\n${indent(error)}`);
      if (session.stderr) console.log(indent(`fixture stderr:\n${session.stderr}`));
    }
  }
  await session.close();
}

const indent = (s) =>
  String(s)
    .split('\n')
    .map((l) => `       ${l}`)
    .join('\n');

for (const [transport, runtime] of cells) {
  await runCell(transport, runtime, 'modern', STEPS);
}
// The same cells in a 2025-11-25 session, for what that revision's
// schema asks differently.
for (const [transport, runtime] of cells) {
  await runCell(transport, runtime, 'legacy', SESSION_STEPS);
}

const passed = results.filter((r) => r.ok).length;
if (values.json) {
  writeFileSync(values.json, `${JSON.stringify({ passed, total: results.length, results }, null, 2)}\n`);
}
console.log(
  `client-interop: ${passed}/${results.length} passed (${STEPS.length} steps x ${cells.length} cells at 2026-07-28, ${SESSION_STEPS.length} x ${cells.length} at 2025-11-25)`,
);
process.exit(passed === results.length ? 0 : 1);
