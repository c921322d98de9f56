#!/usr/bin/env node
// A web application that signs people in with realmgate (OpenID Connect, authorization code
// flow with PKCE) and calls the orders API with their access token. Node's own HTTP server and
// fetch, and jose (a dependency of realmgate) to check the ID token.
//
//   node examples/web/server.mjs       # then open http://localhost:3000
//
// Settings (environment): ISSUER (http://localhost:9000/oauth2/demo), WEB_CLIENT_ID (web),
// WEB_CLIENT_SECRET (unset: a public client, PKCE only), WEB_PORT (3000), WEB_URL
// (http://localhost:$WEB_PORT: its redirect URI is $WEB_URL/callback), API_URL (http://localhost:4000).
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { createRemoteJWKSet, jwtVerify } from 'jose';

const issuer = process.env.ISSUER ?? 'http://localhost:9000/oauth2/demo';
const clientId = process.env.WEB_CLIENT_ID ?? 'web';
const clientSecret = process.env.WEB_CLIENT_SECRET || undefined;
const port = Number(process.env.WEB_PORT ?? 3000);
const webUrl = (process.env.WEB_URL ?? `http://localhost:${port}`).replace(/\/$/, '');
const apiUrl = (process.env.API_URL ?? 'http://localhost:4000').replace(/\/$/, '');
const redirectUri = `${webUrl}/callback`;

// Cookies are per host, not per port: these names must not be realmgate's.
const SESSION = 'example_web_session';
const LOGIN = 'example_web_login';

/** Sign-ins under way (by the LOGIN cookie) and signed-in people (by the SESSION cookie): memory is enough for an example. */
const logins = new Map();
const sessions = new Map();
const random = () => randomBytes(32).toString('base64url');

let metadata;
/** The realm's discovery document, read once it is first needed (realmgate may start after this). */
function discovery() {
  metadata ??= fetch(`${issuer}/.well-known/openid-configuration`)
    .then((response) => {
      if (!response.ok) throw new Error(`discovery answered ${response.status}`);
      return response.json();
    })
    .then((document) => ({ ...document, keys: createRemoteJWKSet(new URL(document.jwks_uri)) }))
    .catch((error) => {
      metadata = undefined;
      throw error;
    });
  return metadata;
}

const escape = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (response, status, body) =>
  response
    .writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
    .end(`<!doctype html><meta charset="utf-8"><title>Example shop</title><h1>Example shop</h1>${body}`);
const redirect = (response, location, cookies = []) => response.writeHead(302, { location, 'set-cookie': cookies }).end();
const cookie = (name, value, maxAge) => `${name}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}`;
const cookiesOf = (request) =>
  Object.fromEntries((request.headers.cookie ?? '').split(';').map((part) => part.trim().split('=')).filter(([name]) => name));

/** Starts a sign-in: PKCE (RFC 7636), state and nonce, kept for ten minutes under a cookie of this browser. */
async function login(_request, response) {
  const { authorization_endpoint } = await discovery();
  for (const [key, pending] of logins) if (pending.expires < Date.now()) logins.delete(key);
  const id = random();
  const flow = { state: random(), nonce: random(), verifier: random(), expires: Date.now() + 600_000 };
  logins.set(id, flow);
  const url = new URL(authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: 'openid profile email orders:read orders:write',
    state: flow.state,
    nonce: flow.nonce,
    code_challenge: createHash('sha256').update(flow.verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  redirect(response, url.href, [cookie(LOGIN, id, 600)]);
}

/** The way back: checks state and iss (RFC 9207), exchanges the code, checks the ID token. */
async function callback(request, response, params) {
  const id = cookiesOf(request)[LOGIN];
  const flow = id && logins.get(id);
  logins.delete(id);
  if (!flow || flow.expires < Date.now() || params.get('state') !== flow.state) return page(response, 400, '<p>This sign-in was not started here, or took too long. <a href="/login">Sign in</a></p>');
  const meta = await discovery();
  if (params.get('iss') !== meta.issuer) return page(response, 400, '<p>The answer came from another issuer.</p>');
  if (params.has('error')) return page(response, 403, `<p>Not signed in: ${escape(params.get('error_description') ?? params.get('error'))}. <a href="/">Back</a></p>`);

  const form = new URLSearchParams({ grant_type: 'authorization_code', code: params.get('code') ?? '', redirect_uri: redirectUri, code_verifier: flow.verifier });
  const headers = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  if (clientSecret) headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;
  else form.set('client_id', clientId);
  const answer = await fetch(meta.token_endpoint, { method: 'POST', headers, body: form });
  const tokens = await answer.json();
  if (!answer.ok) return page(response, 502, `<p>The code exchange failed: ${escape(tokens.error_description ?? tokens.error)}</p>`);
  const { payload: claims } = await jwtVerify(tokens.id_token, meta.keys, { issuer: meta.issuer, audience: clientId });
  if (claims.nonce !== flow.nonce) return page(response, 400, '<p>The ID token is not for this sign-in.</p>');

  const session = random();
  sessions.set(session, { claims, idToken: tokens.id_token, accessToken: tokens.access_token });
  redirect(response, '/', [cookie(SESSION, session, 3600), cookie(LOGIN, '', 0)]);
}

/** Calls the orders API with the person's access token and shows what it answered. */
async function orders(_request, response, session) {
  const answer = await fetch(`${apiUrl}/orders`, { headers: { authorization: `Bearer ${session.accessToken}` } });
  const body = await answer.text();
  page(response, 200, `<p>GET ${escape(apiUrl)}/orders answered <strong id="status">${answer.status}</strong>:</p><pre id="body">${escape(body)}</pre><p><a href="/">Back</a></p>`);
}

async function logout(request, response, session) {
  sessions.delete(cookiesOf(request)[SESSION]);
  const clear = [cookie(SESSION, '', 0)];
  if (!session) return redirect(response, '/', clear);
  // RP-initiated logout: realmgate ends its own session too, then sends the person back here.
  const url = new URL((await discovery()).end_session_endpoint);
  url.search = new URLSearchParams({ id_token_hint: session.idToken, post_logout_redirect_uri: `${webUrl}/` }).toString();
  redirect(response, url.href, clear);
}

function home(_request, response, session) {
  if (!session) return page(response, 200, '<p>You are not signed in. <a href="/login">Sign in</a></p>');
  const { name, email, sub } = session.claims;
  page(response, 200, `<p>Signed in as <strong id="name">${escape(name ?? sub)}</strong> ${email ? `(${escape(email)})` : ''}.</p>
<p><a href="/orders">Show my orders</a> (calls the API) · <a href="/logout">Sign out</a></p>`);
}

const server = createServer(async (request, response) => {
  const url = new URL(request.url ?? '/', webUrl);
  const session = sessions.get(cookiesOf(request)[SESSION]);
  try {
    if (request.method !== 'GET') return page(response, 405, '<p>Method not allowed.</p>');
    if (url.pathname === '/') return home(request, response, session);
    if (url.pathname === '/login') return await login(request, response);
    if (url.pathname === '/callback') return await callback(request, response, url.searchParams);
    if (url.pathname === '/logout') return await logout(request, response, session);
    if (url.pathname === '/orders') return session ? await orders(request, response, session) : redirect(response, '/login');
    if (url.pathname === '/healthz') return response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    page(response, 404, '<p>Not found.</p>');
  } catch (error) {
    console.error(`web: ${request.method} ${url.pathname}: ${error.message}`);
    if (!response.headersSent) page(response, 502, '<p>Something went wrong talking to realmgate or the API; see the server log.</p>');
  }
});

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => server.close(() => process.exit(0)));
}
server.listen(port, '127.0.0.1', () => console.log(`web application on ${webUrl} (client ${clientId}, issuer ${issuer})`));
