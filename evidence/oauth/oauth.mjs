// The OAuth lane: a real authorization server (oidc-provider, lib/as.mjs)
// on loopback, snodo-fixture with authorization on, and the released
// official TypeScript client running its OAuth flows against it
// (lib/flows.mjs), one fresh fixture per runtime. With --conformance, the
// official conformance runner then runs against each fixture through a
// proxy that adds a bearer token from the same authorization server
// (the runner cannot carry one), and its results are held to
// conformance/baseline.json (and, for the 2025-11-25 requirement set,
// conformance/baseline-2025-11-25.json) by conformance/run.
//
//   node oauth.mjs --fixture PATH [--runtime R]... [--conformance R]...
//
// Prints one line per flow and runtime, then `oauth: passed/total`; exits 1
// when anything failed.

import { spawn } from 'node:child_process';
import { createServer, request } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { RESOURCE_CLIENT, SCOPES, startAuthorizationServer } from './lib/as.mjs';
import { FLOWS, serviceToken } from './lib/flows.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const FLOW_TIMEOUT_MS = 30_000;

const { values } = parseArgs({
  options: {
    fixture: { type: 'string' },
    runtime: { type: 'string', multiple: true },
    conformance: { type: 'string', multiple: true },
  },
});
if (!values.fixture) {
  console.error('oauth.mjs: --fixture PATH is required');
  process.exit(2);
}
const runtimes = values.runtime ?? ['tokio', 'smol', 'blocking', 'hyper'];
const conformance = values.conformance ?? [];

/** A free loopback port: the fixture's audience names its port up front. */
async function freePort() {
  const s = createNetServer();
  await new Promise((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address();
  await new Promise((resolve) => s.close(resolve));
  return port;
}

/** Resources whose tokens are opaque: the introspecting fixtures'. */
const opaque = new Set();

/**
 * snodo-fixture on `runtime` with authorization from `issuer`: JWT access
 * tokens checked with its JWKS, or with `introspect` opaque ones checked
 * by RFC 7662 introspection (a deferred authenticator).
 */
async function startFixture(runtime, issuer, { introspect = false } = {}) {
  const port = await freePort();
  const addr = `127.0.0.1:${port}`;
  const endpoint = `http://${addr}/mcp`;
  const tokens = introspect
    ? ['--auth-introspect', `${issuer}/token/introspection`, '--auth-client', `${RESOURCE_CLIENT.id}:${RESOURCE_CLIENT.secret}`]
    : ['--auth-jwks', `${issuer}/jwks`];
  if (introspect) {
    opaque.add(endpoint);
    opaque.add(`http://${addr}/other`);
  }
  const child = spawn(
    values.fixture,
    ['--listen', addr, '--runtime', runtime, '--auth-issuer', issuer, '--auth-audience', endpoint, ...tokens],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const line = await new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    rl.once('line', (l) => {
      rl.close();
      resolve(l.trim());
    });
    child.once('exit', (code) => reject(new Error(`the fixture exited (${code}): ${stderr}`)));
  });
  if (line !== addr) throw new Error(`the fixture announced ${line}, not ${addr}`);
  return {
    endpoint,
    stderr: () => stderr,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

/**
 * A proxy to `endpoint`'s origin that forwards every request and response
 * unchanged (streams included), adding `Authorization: Bearer token`.
 */
async function startProxy(endpoint, token) {
  const target = new URL(endpoint);
  const server = createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    // A connection of its own per request (`agent: false`): a pooled
    // keep-alive connection can be reused just as the fixture closes it
    // for idleness, which the client would see as a reset stream.
    const upstream = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent: false },
      (up) => {
        res.writeHead(up.statusCode, up.statusMessage, up.rawHeaders);
        res.flushHeaders();
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}${target.pathname}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no outcome within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const indent = (s) =>
  String(s)
    .split('\n')
    .map((l) => `       ${l}`)
    .join('\n');

const as = await startAuthorizationServer({
  // Loopback resources only: each fixture's endpoint, and the "other"
  // resource of the refusal flow.
  isResource: (r) => /^http:\/\/127\.0\.0\.1:\d+\//.test(r),
  isOpaque: (r) => opaque.has(r),
});
console.log(`== authorization server (oidc-provider) at ${as.issuer}`);

let passed = 0;
let total = 0;
// Every flow on every runtime twice: JWT access tokens checked with the
// JWKS, then opaque ones checked by introspection.
for (const runtime of runtimes) {
  for (const introspect of [false, true]) {
    const fixture = await startFixture(runtime, as.issuer, { introspect });
    const label = introspect ? `${runtime}, introspection` : runtime;
    for (const flow of FLOWS) {
      total += 1;
      try {
        const note = await withTimeout(
          flow.run({ endpoint: fixture.endpoint, issuer: as.issuer, introspect }),
          FLOW_TIMEOUT_MS,
          flow.name,
        );
        passed += 1;
        console.log(`ok   [${label}] ${flow.name}: ${note}`);
      } catch (e) {
        console.log(`FAIL [${label}] ${flow.name}\n${indent(e?.stack ?? e)}`);
        if (fixture.stderr()) console.log(indent(`fixture stderr:\n${fixture.stderr()}`));
      }
    }
    await fixture.stop();
  }
}

// Both requirement sets, so that what authorization decides holds in the
// initialize-era sessions as in 2026-07-28 requests.
const REQUIREMENTS = [
  { args: [], baseline: 'baseline.json' },
  { args: ['--requirements', '2025-11-25'], baseline: 'baseline-2025-11-25.json' },
];
for (const runtime of conformance) {
  const fixture = await startFixture(runtime, as.issuer);
  let proxy;
  try {
    const token = await serviceToken(as.issuer, fixture.endpoint, SCOPES.join(' '));
    proxy = await startProxy(fixture.endpoint, token);
    for (const { args, baseline } of REQUIREMENTS) {
      total += 1;
      try {
        const code = await new Promise((resolve) => {
          const child = spawn(join(here, '../../conformance/run'), ['--runtime', runtime, ...args, '--url', proxy.url], { stdio: 'inherit' });
          child.once('exit', resolve);
        });
        if (code !== 0) throw new Error(`conformance/run exited ${code}`);
        passed += 1;
        console.log(`ok   [${runtime}] conformance with authorization on, through the token proxy: as ${baseline}`);
      } catch (e) {
        console.log(`FAIL [${runtime}] conformance (${baseline}) with authorization on\n${indent(e?.stack ?? e)}`);
      }
    }
  } catch (e) {
    total += 1;
    console.log(`FAIL [${runtime}] conformance with authorization on\n${indent(e?.stack ?? e)}`);
  } finally {
    await proxy?.close();
    await fixture.stop();
  }
}

await as.close();
console.log(`oauth: ${passed}/${total}`);
process.exit(passed === total ? 0 : 1);
