// A real OAuth 2.1 authorization server on loopback: oidc-provider (pinned
// in package-lock.json), configured the way an MCP deployment would be:
//
// - Resource Indicators (RFC 8707): a token is issued for the `resource`
//   the client names, as a JWT access token (RFC 9068) whose `aud` is that
//   resource, signed RS256 with a key published at `/jwks`;
// - Dynamic Client Registration (RFC 7591), open, for the authorization
//   code flow with PKCE (public clients, `token_endpoint_auth_method:
//   none`);
// - the client credentials grant, for a pre-registered confidential client;
// - token introspection (RFC 7662) for the resource server's own
//   confidential client; a resource the lane marks opaque gets opaque
//   access tokens, which only introspection can check;
// - an interaction endpoint that logs in a fixed user and consents to what
//   was asked for, without a page: the test plays the user agent (see
//   `userAgent` below), so the flow runs headless.
//
// The resource server is snodo-fixture; the scopes it knows are `mcp`
// (every request), `mcp:text` and `mcp:media` (some tools).

import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';

import Provider from 'oidc-provider';

/** The scopes the resource server defines (conformance/src/auth_spec.rs). */
export const SCOPES = ['mcp', 'mcp:text', 'mcp:media', 'mcp:all'];

/** The end user every authorization code flow logs in as. */
export const USER = 'alice';

/** The pre-registered confidential client of the client credentials grant. */
export const SERVICE_CLIENT = { id: 'snodo-lane-service', secret: randomUUID() };

/**
 * The resource server's client at the authorization server: it only
 * introspects tokens (`--auth-introspect … --auth-client ID:SECRET`).
 */
export const RESOURCE_CLIENT = { id: 'snodo-lane-rs', secret: randomUUID() };

/**
 * Start the authorization server on 127.0.0.1 (an ephemeral port).
 * `resources` decides which resource indicators are accepted: a function
 * from the indicator to true/false (the lane accepts each fixture's
 * endpoint URI); `isOpaque` which of them get opaque access tokens rather
 * than JWTs (the introspecting fixtures'). `tls` (`{ cert, key }`, PEM)
 * serves it over HTTPS, the issuer `https://127.0.0.1:PORT`; without it,
 * plain HTTP. Resolves with `{ issuer, jwks, close() }`, `jwks` the public
 * key set it publishes at `/jwks` (for a resource server that reads it
 * from a file).
 */
export async function startAuthorizationServer({ isResource, isOpaque = () => false, tls }) {
  const server = tls ? createHttpsServer({ cert: tls.cert, key: tls.key }) : createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `${tls ? 'https' : 'http'}://127.0.0.1:${server.address().port}`;

  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = `lane-${randomUUID()}`;
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid, use: 'sig', alg: 'RS256' };
  const jwks = { keys: [{ ...publicKey.export({ format: 'jwk' }), kid, use: 'sig', alg: 'RS256' }] };

  const provider = new Provider(issuer, {
    jwks: { keys: [jwk] },
    clients: [
      {
        client_id: SERVICE_CLIENT.id,
        client_secret: SERVICE_CLIENT.secret,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: SCOPES.join(' '),
      },
      {
        client_id: RESOURCE_CLIENT.id,
        client_secret: RESOURCE_CLIENT.secret,
        grant_types: [],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    scopes: SCOPES,
    // The registration policy: a registered client may ask for every scope
    // the resource server defines, whatever `scope` it registered with (the
    // released client registers with the first challenge's scope only, and
    // oidc-provider would otherwise refuse its step-up: README § What it
    // found). The user still grants only what each request names.
    extraClientMetadata: {
      properties: ['snodo_scope_policy'],
      validator(ctx, key, _value, metadata) {
        if (key === 'snodo_scope_policy' && ctx?.oidc?.route === 'registration') metadata.scope = SCOPES.join(' ');
      },
    },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      clientCredentials: { enabled: true },
      // RFC 7662 at /token/introspection: the resource server may ask about
      // any token, a client about its own.
      introspection: {
        enabled: true,
        allowedPolicy: async (_ctx, client, token) => client.clientId === RESOURCE_CLIENT.id || client.clientId === token.clientId,
      },
      resourceIndicators: {
        enabled: true,
        // A token request without `resource` gets the one the grant was
        // for; the client names it anyway (RFC 8707 § 2).
        useGrantedResource: async () => true,
        defaultResource: async (_ctx, _client, oneOf) => oneOf,
        getResourceServerInfo: async (_ctx, resource) => {
          if (!isResource(resource)) throw new Provider.errors.InvalidTarget();
          if (isOpaque(resource)) {
            return { scope: SCOPES.join(' '), audience: resource, accessTokenTTL: 600, accessTokenFormat: 'opaque' };
          }
          return {
            scope: SCOPES.join(' '),
            audience: resource,
            accessTokenTTL: 600,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    pkce: { required: () => true },
    ttl: { AccessToken: 600, AuthorizationCode: 60, ClientCredentials: 600, Grant: 600, Interaction: 600, Session: 600 },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    // No end-user claims are asked for: the account is its id.
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    // Signs the interaction cookies.
    cookies: { keys: [randomUUID()] },
  });
  provider.on('server_error', (_ctx, err) => console.error('oidc-provider server_error:', err));

  const callback = provider.callback();
  server.on('request', async (req, res) => {
    const m = /^\/interaction\/([^/?]+)$/.exec(req.url.split('?')[0]);
    if (!m) return callback(req, res);
    try {
      await consent(provider, req, res);
    } catch (e) {
      res.statusCode = 500;
      res.end(String(e?.message ?? e));
    }
  });

  return {
    issuer,
    jwks,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

/**
 * The interaction: the user logs in and grants exactly the scopes the
 * client asked for on the resource it named (nothing more: a step-up asks
 * again, with the wider set). `params` are the authorization request's.
 */
async function consent(provider, req, res) {
  const details = await provider.interactionDetails(req, res);
  const { prompt, params } = details;
  if (process.env.OAUTH_LANE_DEBUG) console.error('interaction', JSON.stringify(prompt), JSON.stringify(params));
  if (prompt.name === 'login') {
    await provider.interactionFinished(req, res, { login: { accountId: USER } }, { mergeWithLastSubmission: false });
    return;
  }
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId: USER, clientId: params.client_id });
  // What is missing, as oidc-provider computed it from the request (the
  // resource server's scopes per resource indicator, and the same names
  // as the provider's own scopes, which registration checks against).
  const { missingOIDCScope, missingResourceScopes } = prompt.details;
  if (missingOIDCScope) grant.addOIDCScope(missingOIDCScope.join(' '));
  for (const [resource, scopes] of Object.entries(missingResourceScopes ?? {})) {
    grant.addResourceScope(resource, scopes.join(' '));
  }
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

/**
 * The user agent of a headless authorization code flow: follows the
 * authorization server's redirects from `url`, with its cookies, until one
 * points at `redirectUri`; resolves with that URL (its query carries
 * `code` and `iss`, or `error`).
 */
export async function userAgent(url, redirectUri) {
  const jar = new Map();
  let next = new URL(url);
  for (let hop = 0; hop < 20; hop++) {
    if (next.href.startsWith(redirectUri)) return next;
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const response = await fetch(next, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1));
    }
    const location = response.headers.get('location');
    if (!location) {
      throw new Error(`the authorization server answered ${response.status} without a redirect: ${(await response.text()).slice(0, 300)}`);
    }
    await response.body?.cancel();
    if (process.env.OAUTH_LANE_DEBUG) console.error(`ua: ${response.status} ${next.pathname} -> ${location}`);
    next = new URL(location, next);
  }
  throw new Error('too many redirects in the authorization flow');
}
