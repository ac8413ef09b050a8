// snodo's own OAuth client (snodo-oauth-client, in snodo-conformance-client
// with `--oauth`) against a real authorization server
// (oidc-provider, lib/as.mjs) and snodo-fixture with authorization on:
// from the first 401 through discovery (the fixture's protected resource
// metadata, then oidc-provider's OpenID configuration after the RFC 8414
// URL 404s), dynamic registration, the authorization code flow with PKCE
// and the resource indicator through oidc-provider's login and consent
// interactions, to tools/list, and a step-up on 403 `insufficient_scope`
// for `test_simple_text` (scope `mcp:text`); in both protocol dialects;
// then the client credentials grant with the pre-registered service
// client, stepping up likewise.
//
//   node snodo-client.mjs --fixture PATH --client PATH [--runtime R]
//
// Prints one line per dialect and `snodo-client: passed/total`; exits 1
// when anything failed.

import { spawn } from 'node:child_process';
import { createServer as createNetServer } from 'node:net';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';

import { SERVICE_CLIENT, startAuthorizationServer } from './lib/as.mjs';

const { values } = parseArgs({
  options: { fixture: { type: 'string' }, client: { type: 'string' }, runtime: { type: 'string' } },
});
if (!values.fixture || !values.client) {
  console.error('snodo-client.mjs: --fixture PATH and --client PATH are required');
  process.exit(2);
}
const runtime = values.runtime ?? 'tokio';

async function freePort() {
  const s = createNetServer();
  await new Promise((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address();
  await new Promise((resolve) => s.close(resolve));
  return port;
}

async function startFixture(issuer) {
  const addr = `127.0.0.1:${await freePort()}`;
  const endpoint = `http://${addr}/mcp`;
  const child = spawn(
    values.fixture,
    ['--listen', addr, '--runtime', runtime, '--auth-issuer', issuer, '--auth-audience', endpoint, '--auth-jwks', `${issuer}/jwks`],
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
  return { endpoint, stop: () => child.kill('SIGTERM') };
}

/**
 * Runs the client binary; resolves with its exit code and stderr. `env`
 * adds the conformance variables (a scenario and a context make it the
 * client credentials client).
 */
function runClient(endpoint, version, env = {}) {
  return new Promise((resolve) => {
    const child = spawn(values.client, ['--runtime', runtime, '--oauth', '--tool', 'test_simple_text', endpoint], {
      stdio: ['ignore', 'inherit', 'pipe'],
      env: { ...process.env, MCP_CONFORMANCE_PROTOCOL_VERSION: version, ...env },
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

let fixture;
const as = await startAuthorizationServer({ isResource: (r) => r.startsWith('http://127.0.0.1:') });
let passed = 0;
const clientCredentials = {
  MCP_CONFORMANCE_SCENARIO: 'auth/client-credentials-basic',
  MCP_CONFORMANCE_CONTEXT: JSON.stringify({ client_id: SERVICE_CLIENT.id, client_secret: SERVICE_CLIENT.secret }),
};
const runs = [
  ['authorization code', '2026-07-28', {}],
  ['authorization code', '2025-11-25', {}],
  ['client credentials', '2026-07-28', clientCredentials],
];
try {
  fixture = await startFixture(as.issuer);
  for (const [grant, version, env] of runs) {
    const { code, stderr } = await runClient(fixture.endpoint, version, env);
    // The call's result is printed by the client: the tool ran, after the step-up.
    const ok = code === 0 && /tools\/call: .*"text"/.test(stderr);
    if (ok) passed++;
    console.log(`${ok ? 'ok  ' : 'FAIL'} snodo-oauth-client ${grant} [${runtime}, ${version}]${ok ? '' : `: exit ${code}\n${stderr}`}`);
  }
} finally {
  fixture?.stop();
  await as.close();
}
console.log(`snodo-client: ${passed}/${runs.length}`);
process.exit(passed === runs.length ? 0 : 1);
