// node-oidc-provider as the peer, with its in-memory adapter on a store that keeps every entry
// until it expires (in the process, nothing persisted). Configured by the environment (see
// bench/targets/oidc-provider.ts):
//
//   PORT, TOKEN_FORMAT (`opaque` | `jwt`), SERVICE_CLIENT_ID/SECRET (client credentials),
//   WEB_CLIENT_ID/SECRET and REDIRECT_URI (authorization code and refresh token),
//   USERS (comma-separated usernames), PASSWORD (theirs, all the same), ARGON2 (JSON: the
//   argon2id parameters realmgate hashes passwords with).
//
// devInteractions accept any username without a password and print debugging output, so the
// sign-in and consent pages are this file's own: the minimal interactions the library's
// documentation describes (interactionDetails, then interactionResult), with the password
// checked against an argon2id hash made at startup with realmgate's parameters.
import { randomBytes } from 'node:crypto';
import argon2 from 'argon2';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
import MemoryAdapter from 'oidc-provider/lib/adapters/memory_adapter.js';

const env = process.env;
const issuer = `http://127.0.0.1:${env.PORT}`;
const jwtAccessTokens = env.TOKEN_FORMAT === 'jwt';
const API = 'urn:bench:api';

const hashing = { ...JSON.parse(env.ARGON2), type: argon2.argon2id };
const passwordHashes = new Map();
for (const username of (env.USERS ?? '').split(',').filter(Boolean)) {
  passwordHashes.set(username, await argon2.hash(env.PASSWORD, hashing));
}

// Own keys, so that it does not run on its development defaults: RS256 for ID tokens (as
// realmgate's clients by default), ES256 for JWT access tokens (as realmgate's `signing_alg`).
const rsa = await generateKeyPair('RS256', { extractable: true });
const ec = await generateKeyPair('ES256', { extractable: true });

/**
 * The library's in-memory adapter keeps its entries in an LRU of its last 1,000 to 2,000: under
 * the refresh scenario's load it forgot refresh tokens still in use ("refresh token not found"),
 * each such answer ended a chain of rotations, and a run that lost enough of them answered
 * errors only. The same adapter on this store, which keeps an entry until it expires, as a
 * database does.
 */
class KeepingStore {
  #entries = new Map();

  get(key) {
    const entry = this.#entries.get(key);
    if (entry?.expiry !== undefined && entry.expiry <= Date.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry?.value;
  }

  set(key, value, { maxAge } = {}) {
    const expiry = typeof maxAge === 'number' && maxAge !== Number.POSITIVE_INFINITY ? Date.now() + maxAge : undefined;
    this.#entries.set(key, { value, expiry });
    return this;
  }

  has(key) {
    return this.get(key) !== undefined;
  }

  delete(key) {
    return this.#entries.delete(key);
  }
}
const store = new KeepingStore();

const provider = new Provider(issuer, {
  adapter: (model) => new MemoryAdapter(model, store),
  clients: [
    {
      client_id: env.SERVICE_CLIENT_ID,
      client_secret: env.SERVICE_CLIENT_SECRET,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
      scope: 'api',
    },
    {
      client_id: env.WEB_CLIENT_ID,
      client_secret: env.WEB_CLIENT_SECRET,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      redirect_uris: [env.REDIRECT_URI],
      token_endpoint_auth_method: 'client_secret_basic',
      scope: 'openid profile',
    },
  ],
  scopes: ['openid', 'profile', 'api'],
  claims: { openid: ['sub'], profile: ['name'] },
  findAccount: (_ctx, accountId) =>
    passwordHashes.has(accountId) ? { accountId, claims: () => ({ sub: accountId, name: `Bench ${accountId}` }) } : undefined,
  jwks: {
    keys: [
      { ...(await exportJWK(rsa.privateKey)), alg: 'RS256', use: 'sig', kid: 'rs256' },
      { ...(await exportJWK(ec.privateKey)), alg: 'ES256', use: 'sig', kid: 'es256' },
    ],
  },
  cookies: { keys: [randomBytes(32).toString('base64url')] },
  features: {
    clientCredentials: { enabled: true },
    // The rule realmgate applies: a client introspects the tokens issued to it.
    introspection: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
    devInteractions: { enabled: false },
    // Opaque: requests carry no `resource`, so no resource server is chosen and the access
    // token is opaque, stored by the adapter, as realmgate's. JWT: every request gets one
    // resource server whose access tokens are RFC 9068 JWTs signed with ES256, stored nowhere,
    // as realmgate's with `stateless_tokens`.
    resourceIndicators: jwtAccessTokens
      ? {
          enabled: true,
          defaultResource: () => API,
          getResourceServerInfo: () => ({ scope: 'api', audience: API, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'ES256' } } }),
        }
      : { enabled: true },
  },
  // realmgate's policy: a refresh token whenever the client has the grant (no `offline_access`
  // needed), rotated at each use, and living its own lifetime, not the browser session's.
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
  rotateRefreshToken: true,
  expiresWithSession: async () => false,
  // realmgate's default lifetimes (and the library's for interactions and sessions, set to silence its notice).
  ttl: { Interaction: 3600, Session: 1_209_600, AccessToken: 3600, ClientCredentials: 3600, IdToken: 3600, AuthorizationCode: 120, RefreshToken: 604800, Grant: 604800 },
});

// --- The sign-in and consent pages (CONTRACT.md §4's shape, which the bench's browser reads) ---

const escape = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (title, form) => `<!DOCTYPE html><html><head><title>${title}</title></head><body><h1>${title}</h1>${form}</body></html>`;

function signInPage(uid, error) {
  return page(
    'Sign in',
    `${error ? `<p>${escape(error)}</p>` : ''}<form method="post" action="/interaction/${escape(uid)}/login">` +
      '<input name="username" autocomplete="username"><input type="password" name="password" autocomplete="current-password">' +
      '<button type="submit">Sign in</button></form>',
  );
}

function consentPage(uid, scopes) {
  return page(
    'Allow access',
    `<ul>${scopes.map((scope) => `<li>${escape(scope)}</li>`).join('')}</ul><form method="post" action="/interaction/${escape(uid)}/confirm">` +
      '<button name="decision" value="allow">Allow</button><button name="decision" value="deny">Deny</button></form>',
  );
}

async function formBody(req) {
  let body = '';
  for await (const chunk of req) {
    body += chunk;
    if (body.length > 10_000) throw new Error('body too large');
  }
  return new URLSearchParams(body);
}

/** The library's own consent step: the grant of the session (or a new one) gains what the prompt says is missing. */
async function grantConsent({ grantId, session, params, prompt: { details } }) {
  const grant = grantId ? await provider.Grant.find(grantId) : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
  if (details.missingOIDCScope) grant.addOIDCScope(details.missingOIDCScope.join(' '));
  if (details.missingOIDCClaims) grant.addOIDCClaims(details.missingOIDCClaims);
  if (details.missingResourceScopes) {
    for (const [indicator, scope] of Object.entries(details.missingResourceScopes)) grant.addResourceScope(indicator, scope.join(' '));
  }
  return grant.save();
}

const INTERACTION = /^\/interaction\/([\w-]+)(?:\/(login|confirm))?$/;

provider.use(async (ctx, next) => {
  const match = INTERACTION.exec(ctx.path);
  if (!match) return next();
  const [, uid, action] = match;
  const details = await provider.interactionDetails(ctx.req, ctx.res);
  if (details.uid !== uid) ctx.throw(400, 'interaction mismatch');
  ctx.set('cache-control', 'no-store');
  const finish = async (result, merge) => {
    const returnTo = await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: merge });
    ctx.status = 303;
    ctx.redirect(returnTo);
  };

  if (ctx.method === 'GET' && !action) {
    ctx.type = 'html';
    ctx.body =
      details.prompt.name === 'login'
        ? signInPage(uid)
        : consentPage(uid, [...(details.prompt.details.missingOIDCScope ?? []), ...Object.values(details.prompt.details.missingResourceScopes ?? {}).flat()]);
    return;
  }
  if (ctx.method !== 'POST') ctx.throw(405);
  const form = await formBody(ctx.req);
  if (action === 'login' && details.prompt.name === 'login') {
    const username = form.get('username') ?? '';
    const hash = passwordHashes.get(username);
    if (!hash || !(await argon2.verify(hash, form.get('password') ?? ''))) {
      ctx.type = 'html';
      ctx.body = signInPage(uid, 'The username or password is incorrect.');
      return;
    }
    return finish({ login: { accountId: username } }, false);
  }
  if (action === 'confirm' && details.prompt.name === 'consent') {
    if (form.get('decision') !== 'allow') return finish({ error: 'access_denied', error_description: 'the person denied access' }, false);
    return finish({ consent: { grantId: await grantConsent(details) } }, true);
  }
  ctx.throw(400, 'unexpected interaction step');
});

const server = provider.listen(Number(env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
