#!/usr/bin/env node
// Creates what the examples need in a running realmgate, through its admin API: a realm, the
// scopes orders:read and orders:write, a person, and three clients:
//   web         the browser application (examples/web): authorization code flow with PKCE
//   orders-api  the API (examples/api): introspects opaque tokens
//   cli         a service of the client credentials grant, for curl
// It may run again: what exists is updated, and the clients get new secrets.
//
//   eval "$(ADMIN_TOKEN=… node examples/setup.mjs)"    # exports ISSUER and the clients' ids and secrets
//
// Settings (environment): REALMGATE_URL (http://localhost:9000), ADMIN_TOKEN (required),
// REALM (demo), STATELESS_TOKENS (true: JWT access tokens; false: opaque), WEB_URL
// (http://localhost:3000, where examples/web runs), DEMO_USERNAME (alice), DEMO_PASSWORD
// (correct horse battery).

const base = (process.env.REALMGATE_URL ?? 'http://localhost:9000').replace(/\/$/, '');
const adminToken = process.env.ADMIN_TOKEN;
const realm = process.env.REALM ?? 'demo';
const stateless = (process.env.STATELESS_TOKENS ?? 'true') !== 'false';
const webUrl = (process.env.WEB_URL ?? 'http://localhost:3000').replace(/\/$/, '');
const username = process.env.DEMO_USERNAME ?? 'alice';
const password = process.env.DEMO_PASSWORD ?? 'correct horse battery';

if (!adminToken) {
  console.error('setup: set ADMIN_TOKEN to the admin token realmgate was started with (or printed at its first start)');
  process.exit(2);
}

/** Waits up to 30 s for realmgate to answer, so that this may follow `npm start &` at once. */
async function waitForRealmgate() {
  const deadline = Date.now() + 30_000;
  for (;;) {
    let problem;
    try {
      const response = await fetch(`${base}/healthz`);
      if (response.ok) return;
      problem = `status ${response.status}`;
    } catch (error) {
      problem = error.cause?.code ?? error.message;
    }
    if (Date.now() > deadline) {
      console.error(`setup: cannot reach realmgate at ${base} (${problem}); start it with npm start`);
      process.exit(1);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** One admin call; `allow` lists the failure statuses that mean "already there". */
async function admin(method, path, body, allow = []) {
  let response;
  try {
    response = await fetch(`${base}/admin${path}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (error) {
    console.error(`setup: cannot reach realmgate at ${base} (${error.cause?.code ?? error.message}); start it with npm start`);
    process.exit(1);
  }
  const text = await response.text();
  const json = text ? JSON.parse(text) : undefined;
  if (response.ok || allow.includes(response.status)) return { status: response.status, body: json };
  console.error(`setup: ${method} /admin${path} answered ${response.status}: ${json?.error_description ?? text}`);
  process.exit(1);
}

/** Creates the client, or brings an existing one up to date and gives it a new secret; returns the secret. */
async function client(record) {
  const created = await admin('POST', `/realms/${realm}/clients`, record, [409]);
  if (created.status !== 409) return created.body.client_secret;
  const { client_id: id, ...metadata } = record;
  await admin('PATCH', `/realms/${realm}/clients/${id}`, metadata);
  return (await admin('POST', `/realms/${realm}/clients/${id}/secret`)).body.client_secret;
}

await waitForRealmgate();
const settings = { stateless_tokens: stateless };
if ((await admin('POST', '/realms', { name: realm, settings }, [409])).status === 409) {
  await admin('PATCH', `/realms/${realm}`, { settings });
}
await admin('PUT', `/realms/${realm}/scopes/orders:read`, { description: 'See your orders' });
await admin('PUT', `/realms/${realm}/scopes/orders:write`, { description: 'Place orders' });

const person = { password, claims: { name: 'Alice Example', email: 'alice@example.com', email_verified: true } };
if ((await admin('POST', `/realms/${realm}/users`, { username, ...person }, [409])).status === 409) {
  await admin('PATCH', `/realms/${realm}/users/${encodeURIComponent(username)}`, person);
}

const web = await client({
  client_id: 'web',
  client_name: 'Example shop',
  redirect_uris: [`${webUrl}/callback`],
  post_logout_redirect_uris: [`${webUrl}/`],
  grant_types: ['authorization_code', 'refresh_token'],
  scope: 'openid profile email orders:read orders:write',
  require_pkce: true,
});
const api = await client({ client_id: 'orders-api', client_name: 'Orders API', grant_types: [], introspect_any_token: true });
const cli = await client({ client_id: 'cli', client_name: 'Command line', grant_types: ['client_credentials'], scope: 'orders:read orders:write' });

const issuer = (await admin('GET', `/realms/${realm}`)).body.issuer;
console.error(`setup: realm ${realm} (${stateless ? 'JWT' : 'opaque'} access tokens), user ${username} / ${password}, clients web, orders-api, cli`);
console.log(`export ISSUER=${issuer}`);
console.log(`export WEB_CLIENT_ID=web WEB_CLIENT_SECRET=${web}`);
console.log(`export API_CLIENT_ID=orders-api API_CLIENT_SECRET=${api}`);
console.log(`export CLI_CLIENT_ID=cli CLI_CLIENT_SECRET=${cli}`);
