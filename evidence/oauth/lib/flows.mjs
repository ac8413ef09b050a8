// The released client's OAuth flows against a fixture with authorization
// on. Each flow starts from nothing (no client registration, no token) and
// records every HTTP exchange the client made, so the steps can assert the
// discovery order on the wire as well as the outcome.

import { strict as assert } from 'node:assert';

import {
  Client,
  ClientCredentialsProvider,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';

import { RESOURCE_CLIENT, SERVICE_CLIENT, USER, userAgent } from './as.mjs';

export const PROTOCOL_VERSION = '2026-07-28';

/** Where the authorization server sends the browser back; never fetched. */
const REDIRECT_URI = 'http://127.0.0.1:9/callback';

function newClient() {
  return new Client(
    { name: 'snodo-oauth-lane', version: '1.0.0' },
    { capabilities: {}, versionNegotiation: { mode: { pin: PROTOCOL_VERSION } } },
  );
}

/** A fetch that records `METHOD url -> status` for every exchange. */
function recordingFetch(log) {
  return async (url, init) => {
    const response = await fetch(url, init);
    const u = new URL(String(url));
    log.push({ method: init?.method ?? 'GET', path: `${u.origin}${u.pathname}`, status: response.status });
    return response;
  };
}

/** The claims of a JWT, unverified (the fixture verified it). */
export function claims(jwt) {
  return JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString());
}

/**
 * What `token` says: its claims when it is a JWT; when the fixture
 * introspects (the token is opaque), the authorization server's RFC 7662
 * answer about it, asked as the resource server is.
 */
async function tokenClaims(token, { issuer, introspect }) {
  if (!introspect) return claims(token);
  const response = await fetch(`${issuer}/token/introspection`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${RESOURCE_CLIENT.id}:${RESOURCE_CLIENT.secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ token }),
  });
  if (response.status !== 200) throw new Error(`introspection endpoint: ${response.status} ${await response.text()}`);
  const answer = await response.json();
  assert.equal(answer.active, true, `an active token: ${JSON.stringify(answer)}`);
  assert.equal(token.split('.').length, 1, 'an opaque token, not a JWT');
  return answer;
}

/**
 * An OAuthClientProvider for a public client that registers itself (RFC
 * 7591) and runs the authorization code flow with PKCE; the browser is
 * `userAgent`, which logs in and consents without a page. The code it
 * brings back waits in `callback` for the application to finish the flow.
 */
class CodeFlowProvider {
  constructor() {
    this.saved = {};
    this.callback = undefined;
    this.redirects = 0;
  }
  get redirectUrl() {
    return REDIRECT_URI;
  }
  get clientMetadata() {
    return {
      client_name: 'snodo-oauth-lane',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.saved.client;
  }
  saveClientInformation(info) {
    this.saved.client = info;
  }
  tokens() {
    return this.saved.tokens;
  }
  saveTokens(tokens) {
    this.saved.tokens = tokens;
  }
  saveCodeVerifier(v) {
    this.saved.verifier = v;
  }
  codeVerifier() {
    return this.saved.verifier;
  }
  saveDiscoveryState(state) {
    this.saved.discovery = state;
  }
  discoveryState() {
    return this.saved.discovery;
  }
  async redirectToAuthorization(url) {
    this.redirects += 1;
    this.authorizationUrl = new URL(url);
    this.callback = await userAgent(url, REDIRECT_URI);
  }
}

/**
 * What `log` shows of the discovery: the 401 on the endpoint, then the
 * protected resource metadata, then the authorization server's metadata.
 */
function assertDiscovery(log, { endpoint, issuer }) {
  const at = (pred, what) => {
    const i = log.findIndex(pred);
    assert.ok(i >= 0, `${what} not in ${JSON.stringify(log, null, 1)}`);
    return i;
  };
  const unauthorized = at((e) => e.path === endpoint && e.status === 401, 'a 401 from the endpoint');
  const prm = at(
    (e) => e.path.startsWith(`${new URL(endpoint).origin}/.well-known/oauth-protected-resource`) && e.status === 200,
    'the protected resource metadata',
  );
  const asMeta = at(
    (e) =>
      e.path.startsWith(`${issuer}/.well-known/`) &&
      /oauth-authorization-server|openid-configuration/.test(e.path) &&
      e.status === 200,
    "the authorization server's metadata",
  );
  const token = at((e) => e.path.startsWith(issuer) && e.method === 'POST' && e.status === 200 && /token/.test(e.path), 'a token');
  assert.ok(unauthorized < prm && prm < asMeta && asMeta < token, `discovery order: ${JSON.stringify(log, null, 1)}`);
}

async function callText(client, name) {
  const result = await client.callTool({ name, arguments: {} });
  assert.notEqual(result.isError, true, JSON.stringify(result));
  return result.content;
}

/**
 * The authorization code flow: dynamic registration, PKCE, the resource
 * indicator, and a step-up when a tool needs a scope the token lacks.
 */
async function authorizationCode({ endpoint, issuer, introspect }) {
  const provider = new CodeFlowProvider();
  const log = [];
  const transport = () =>
    new StreamableHTTPClientTransport(new URL(endpoint), { authProvider: provider, fetch: recordingFetch(log) });

  // 1. No token: the 401 starts discovery, registration and the redirect;
  //    the client stops there, as it does in a real application.
  await assert.rejects(newClient().connect(transport()), (e) => e instanceof UnauthorizedError);
  assert.equal(provider.redirects, 1);
  assert.ok(provider.saved.client?.client_id, 'the client registered itself');
  assert.ok(log.some((e) => e.method === 'POST' && e.status === 201 && e.path.startsWith(issuer)), 'dynamic registration (201)');
  const authz = provider.authorizationUrl.searchParams;
  assert.equal(authz.get('resource'), endpoint, 'the authorization request names the resource (RFC 8707)');
  assert.equal(authz.get('code_challenge_method'), 'S256');
  assert.equal(authz.get('scope'), 'mcp', 'the scope from the challenge');

  // 2. The application finishes the flow with the code, and connects.
  const first = transport();
  await first.finishAuth(provider.callback.searchParams);
  assertDiscovery(log, { endpoint, issuer });
  const token = await tokenClaims(provider.saved.tokens.access_token, { issuer, introspect });
  assert.equal(token.aud, endpoint, 'audience: the fixture endpoint');
  assert.equal(token.iss, issuer);
  assert.equal(token.sub, USER);
  assert.equal(token.scope, 'mcp');
  const client = newClient();
  await client.connect(first);
  const tools = await client.listTools();
  assert.ok(tools.tools.some((t) => t.name === 'test_simple_text'));

  // 3. test_simple_text needs `mcp:text`: 403 insufficient_scope, and the
  //    client re-authorizes for the union of scopes (a second redirect).
  await assert.rejects(callText(client, 'test_simple_text'), (e) => e instanceof UnauthorizedError);
  assert.ok(log.some((e) => e.path === endpoint && e.status === 403), 'a 403 from the endpoint');
  assert.equal(provider.redirects, 2, 'step-up re-authorization');
  assert.deepEqual(provider.authorizationUrl.searchParams.get('scope').split(' ').sort(), ['mcp', 'mcp:text']);
  await first.finishAuth(provider.callback.searchParams);
  const stepped = await tokenClaims(provider.saved.tokens.access_token, { issuer, introspect });
  assert.deepEqual(stepped.scope.split(' ').sort(), ['mcp', 'mcp:text']);
  const content = await callText(client, 'test_simple_text');
  assert.deepEqual(content, [{ type: 'text', text: 'This is a simple text response for testing.' }]);
  await client.close();
  return `registered ${provider.saved.client.client_id.slice(0, 8)}…, 2 authorizations, scopes mcp → mcp mcp:text`;
}

/**
 * The client credentials grant with a pre-registered client: the SDK's
 * ClientCredentialsProvider gets a token on the 401, and a new one on a
 * 403 `insufficient_scope`, without the application's help.
 */
async function clientCredentials({ endpoint, issuer, introspect }) {
  const provider = new ClientCredentialsProvider({
    clientId: SERVICE_CLIENT.id,
    clientSecret: SERVICE_CLIENT.secret,
    expectedIssuer: issuer,
  });
  const log = [];
  const client = newClient();
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint), { authProvider: provider, fetch: recordingFetch(log) }));
  assertDiscovery(log, { endpoint, issuer });
  const token = await tokenClaims(provider.tokens().access_token, { issuer, introspect });
  assert.equal(token.aud, endpoint);
  assert.equal(token.iss, issuer);
  assert.equal(token.client_id, SERVICE_CLIENT.id);
  assert.equal(token.scope, 'mcp');

  const image = await client.callTool({ name: 'test_image_content', arguments: {} });
  assert.equal(image.content[0].type, 'image');
  assert.ok(log.some((e) => e.path === endpoint && e.status === 403), 'a 403 before the step-up');
  const stepped = await tokenClaims(provider.tokens().access_token, { issuer, introspect });
  assert.deepEqual(stepped.scope.split(' ').sort(), ['mcp', 'mcp:media']);
  const tokens = log.filter((e) => e.method === 'POST' && e.path.startsWith(issuer) && e.status === 200).length;
  assert.equal(tokens, 2, 'two tokens: the first and the step-up');
  await client.close();
  return 'two tokens, scopes mcp → mcp mcp:media';
}

/**
 * The fixture still refuses what it must with the real server's tokens
 * around: no token, and a token for another resource from the same
 * authorization server.
 */
async function refusals({ endpoint, issuer, introspect }) {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/list',
    params: { _meta: { 'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION, 'io.modelcontextprotocol/clientCapabilities': {} } },
  });
  const post = (headers) =>
    fetch(endpoint, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': PROTOCOL_VERSION,
        'mcp-method': 'tools/list',
        ...headers,
      },
    });
  const none = await post({});
  assert.equal(none.status, 401);
  const prm = `${new URL(endpoint).origin}/.well-known/oauth-protected-resource${new URL(endpoint).pathname}`;
  assert.equal(none.headers.get('www-authenticate'), `Bearer scope="mcp", resource_metadata="${prm}"`);
  const metadata = await (await fetch(prm)).json();
  assert.deepEqual(metadata.authorization_servers, [issuer]);
  assert.equal(metadata.resource, endpoint);

  // A token the same server issued for another resource it knows.
  const other = `${new URL(endpoint).origin}/other`;
  const access_token = await serviceToken(issuer, other, 'mcp');
  assert.equal((await tokenClaims(access_token, { issuer, introspect })).aud, other);
  const refused = await post({ authorization: `Bearer ${access_token}` });
  assert.equal(refused.status, 401);
  assert.equal(
    refused.headers.get('www-authenticate'),
    `Bearer error="invalid_token", error_description="The token was issued for another audience", scope="mcp", resource_metadata="${prm}"`,
  );
  return 'no token: 401; a token for another resource: 401 invalid_token';
}

/**
 * A scope hierarchy: the fixture declares that `mcp:all` implies `mcp`
 * and every tool's scope (conformance/src/auth_spec.rs), so a token the
 * real server granted `mcp:all` alone passes the endpoint's requirement
 * and calls `test_simple_text`, which needs `mcp:text`, in a 2026-07-28
 * request and inside a 2025-11-25 session.
 */
async function broaderScope({ endpoint, issuer, introspect }) {
  const access_token = await serviceToken(issuer, endpoint, 'mcp:all');
  assert.equal((await tokenClaims(access_token, { issuer, introspect })).scope, 'mcp:all');
  const post = (headers, message) =>
    fetch(endpoint, {
      method: 'POST',
      body: JSON.stringify(message),
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${access_token}`,
        ...headers,
      },
    });
  const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'test_simple_text' } };
  const stateless = await post(
    { 'mcp-protocol-version': PROTOCOL_VERSION, 'mcp-method': 'tools/call', 'mcp-name': 'test_simple_text' },
    { ...call, params: { ...call.params, _meta: { 'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION, 'io.modelcontextprotocol/clientCapabilities': {} } } },
  );
  assert.equal(stateless.status, 200);
  assert.match(await stateless.text(), /This is a simple text response for testing\./);

  const init = await post({}, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'lane', version: '1' } },
  });
  assert.equal(init.status, 200);
  const session = { 'mcp-session-id': init.headers.get('mcp-session-id'), 'mcp-protocol-version': '2025-11-25' };
  await init.text();
  assert.equal((await post(session, { jsonrpc: '2.0', method: 'notifications/initialized' })).status, 202);
  const inSession = await post(session, call);
  assert.equal(inSession.status, 200);
  assert.match(await inSession.text(), /This is a simple text response for testing\./);
  return 'one token, scope mcp:all: the endpoint and test_simple_text (mcp:text), 2026-07-28 and 2025-11-25';
}

export const FLOWS = [
  { name: 'authorization code + registration + PKCE + step-up', run: authorizationCode },
  { name: 'client credentials + step-up', run: clientCredentials },
  { name: 'a broader scope for the narrower ones', run: broaderScope },
  { name: 'refusals', run: refusals },
];

/** A client-credentials token for `resource` with every scope. */
export async function serviceToken(issuer, resource, scope) {
  const response = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${SERVICE_CLIENT.id}:${SERVICE_CLIENT.secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope, resource }),
  });
  if (response.status !== 200) throw new Error(`token endpoint: ${response.status} ${await response.text()}`);
  return (await response.json()).access_token;
}
