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
// With `--tls` the authorization server is served over HTTPS
// (https://127.0.0.1:PORT), its certificate (for 127.0.0.1 and localhost)
// signed by a throwaway CA made here with `openssl` for this run only,
// and the client is handed that CA with `--ca` on top of the web's roots:
// every flow above then runs over HTTPS to the authorization server, and
// one more run without `--ca` must be refused at the TLS handshake
// (rustls: the issuer is unknown) before anything is sent. The fixture
// stays on HTTP and reads the authorization server's JWKS from a file
// (snodo-auth's JWKS fetcher trusts the web's roots only).
//
//   node snodo-client.mjs --fixture PATH --client PATH [--runtime R] [--tls]
//
// Prints one line per dialect and `snodo-client: passed/total`; exits 1
// when anything failed.

import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createNetServer } from 'node:net';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';

import { SERVICE_CLIENT, startAuthorizationServer } from './lib/as.mjs';

const { values } = parseArgs({
  options: {
    fixture: { type: 'string' },
    client: { type: 'string' },
    runtime: { type: 'string' },
    tls: { type: 'boolean', default: false },
  },
});
if (!values.fixture || !values.client) {
  console.error('snodo-client.mjs: --fixture PATH and --client PATH are required');
  process.exit(2);
}
const runtime = values.runtime ?? 'tokio';
const mode = values.tls ? 'https' : 'http';

/**
 * A throwaway CA and a certificate it signs for 127.0.0.1 and localhost
 * (ECDSA P-256, valid for a day), in `dir`: `{ ca, cert, key }`, the
 * paths of the CA certificate and the server's certificate and key (PEM).
 */
function makeCertificates(dir) {
  const path = (name) => join(dir, name);
  const openssl = (...args) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl('req', '-x509', ...ec, '-keyout', path('ca.key'), '-out', path('ca.pem'), '-days', '1',
    '-subj', '/CN=snodo oauth lane throwaway CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  openssl('req', ...ec, '-keyout', path('as.key'), '-out', path('as.csr'), '-subj', '/CN=127.0.0.1');
  writeFileSync(path('as.ext'), [
    'basicConstraints=critical,CA:FALSE',
    'keyUsage=critical,digitalSignature',
    'extendedKeyUsage=serverAuth',
    'subjectAltName=IP:127.0.0.1,DNS:localhost',
    '',
  ].join('\n'));
  openssl('x509', '-req', '-in', path('as.csr'), '-CA', path('ca.pem'), '-CAkey', path('ca.key'),
    '-set_serial', '1', '-days', '1', '-extfile', path('as.ext'), '-out', path('as.pem'));
  return { ca: path('ca.pem'), cert: path('as.pem'), key: path('as.key') };
}

async function freePort() {
  const s = createNetServer();
  await new Promise((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address();
  await new Promise((resolve) => s.close(resolve));
  return port;
}

/**
 * snodo-fixture with authorization on, trusting `issuer`'s keys (`jwks`, a
 * file, or fetched from the issuer). With `tls` (`{ cert, key }`, paths)
 * it serves https:// on hyper (the runtime with TLS), else http:// on the
 * client's runtime.
 */
async function startFixture(issuer, jwks, tls) {
  const addr = `127.0.0.1:${await freePort()}`;
  const endpoint = `${tls ? 'https' : 'http'}://${addr}/mcp`;
  const serve = tls ? ['--runtime', 'hyper', '--tls-cert', tls.cert, '--tls-key', tls.key] : ['--runtime', runtime];
  const child = spawn(
    values.fixture,
    ['--listen', addr, ...serve, '--auth-issuer', issuer, '--auth-audience', endpoint, '--auth-jwks', jwks ?? `${issuer}/jwks`],
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
function runClient(endpoint, version, env = {}, ca = undefined) {
  return new Promise((resolve) => {
    const caArgs = ca ? ['--ca', ca] : [];
    const child = spawn(values.client, ['--runtime', runtime, '--oauth', '--tool', 'test_simple_text', ...caArgs, endpoint], {
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
let tlsFixture;
const dir = values.tls ? mkdtempSync(join(tmpdir(), 'snodo-oauth-tls-')) : undefined;
const certs = dir ? makeCertificates(dir) : undefined;
const as = await startAuthorizationServer({
  isResource: (r) => r.startsWith('http://127.0.0.1:') || r.startsWith('https://127.0.0.1:'),
  tls: certs && { cert: readFileSync(certs.cert), key: readFileSync(certs.key) },
});
if (values.tls && !as.issuer.startsWith('https://')) throw new Error(`--tls, but the issuer is ${as.issuer}`);
let jwksFile;
if (dir) {
  jwksFile = join(dir, 'jwks.json');
  writeFileSync(jwksFile, JSON.stringify(as.jwks));
}
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
let total = runs.length;
try {
  fixture = await startFixture(as.issuer, jwksFile);
  // With --tls: the authorization server over HTTPS, the MCP server over
  // HTTP (the fixture on the client's runtime), then both over HTTPS (the
  // fixture on hyper with the same CA's certificate).
  const targets = [[fixture, certs ? 'https AS, http MCP' : mode]];
  if (certs) {
    tlsFixture = await startFixture(as.issuer, jwksFile, certs);
    targets.push([tlsFixture, 'https AS, https MCP']);
  }
  for (const [target, label] of targets) {
    for (const [grant, version, env] of runs) {
      const { code, stderr } = await runClient(target.endpoint, version, env, certs?.ca);
      // The call's result is printed by the client: the tool ran, after the step-up.
      const ok = code === 0 && /tools\/call: .*"text"/.test(stderr);
      if (ok) passed++;
      console.log(`${ok ? 'ok  ' : 'FAIL'} snodo-oauth-client ${grant} [${runtime}, ${label}, ${version}]${ok ? '' : `: exit ${code}\n${stderr}`}`);
    }
  }
  total = runs.length * targets.length;
  if (certs) {
    // Without the CA a certificate of the throwaway CA chains to no root
    // the client trusts (it keeps the web's): against the HTTP fixture
    // the flow stops at the first request to the authorization server
    // (its metadata: the OAuth client's error names the URL), against the
    // HTTPS one at the MCP server itself (the transport's TLS error, the
    // authorization server never asked), each with rustls's reason, and
    // no tool runs.
    const refusals = [
      [fixture.endpoint, (e) => e.includes(`HTTP request failed: ${as.issuer}/`), 'the authorization server'],
      [tlsFixture.endpoint, (e) => /TLS: invalid peer certificate/.test(e) && !e.includes(as.issuer), 'the MCP server'],
    ];
    for (const [endpoint, where, what] of refusals) {
      total++;
      const { code, stderr } = await runClient(endpoint, '2026-07-28');
      const refused = code !== 0 && /UnknownIssuer/.test(stderr) && where(stderr) && !/tools\/call:/.test(stderr);
      if (refused) passed++;
      const why = stderr.trim().split('\n').pop().replace(/^: /, '');
      console.log(`${refused ? 'ok  ' : 'FAIL'} snodo-oauth-client without --ca refuses ${what} [${runtime}]${refused ? `: ${why}` : `: exit ${code}\n${stderr}`}`);
    }
  }
} finally {
  fixture?.stop();
  tlsFixture?.stop();
  await as.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}
console.log(`snodo-client: ${passed}/${total}`);
process.exit(passed === total ? 0 : 1);
