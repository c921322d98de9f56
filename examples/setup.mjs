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

import { adminApi } from './admin-api.mjs';

const base = (process.env.REALMGATE_URL ?? 'http://localhost:9000').replace(/\/$/, '');
const adminToken = process.env.ADMIN_TOKEN;
const realm = process.env.REALM ?? 'demo';
const stateless = (process.env.STATELESS_TOKENS ?? 'true') !== 'false';
const webUrl = (process.env.WEB_URL ?? 'http://localhost:3000').replace(/\/$/, '');
const username = process.env.DEMO_USERNAME ?? 'alice';
const password = process.env.DEMO_PASSWORD ?? 'correct horse battery';

const { admin, waitForRealmgate, realm: ensureRealm, person: ensurePerson, client: ensureClient } = adminApi(base, adminToken);

await waitForRealmgate();
const issuer = await ensureRealm(realm, { stateless_tokens: stateless });
await admin('PUT', `/realms/${realm}/scopes/orders:read`, { description: 'See your orders' });
await admin('PUT', `/realms/${realm}/scopes/orders:write`, { description: 'Place orders' });

await ensurePerson(realm, username, { password, claims: { name: 'Alice Example', email: 'alice@example.com', email_verified: true } });

const web = await ensureClient(realm, {
  client_id: 'web',
  client_name: 'Example shop',
  redirect_uris: [`${webUrl}/callback`],
  post_logout_redirect_uris: [`${webUrl}/`],
  grant_types: ['authorization_code', 'refresh_token'],
  scope: 'openid profile email orders:read orders:write',
  require_pkce: true,
});
const api = await ensureClient(realm, { client_id: 'orders-api', client_name: 'Orders API', grant_types: [], introspect_any_token: true });
const cli = await ensureClient(realm, { client_id: 'cli', client_name: 'Command line', grant_types: ['client_credentials'], scope: 'orders:read orders:write' });

console.error(`setup: realm ${realm} (${stateless ? 'JWT' : 'opaque'} access tokens), user ${username} / ${password}, clients web, orders-api, cli`);
console.log(`export ISSUER=${issuer}`);
console.log(`export WEB_CLIENT_ID=web WEB_CLIENT_SECRET=${web}`);
console.log(`export API_CLIENT_ID=orders-api API_CLIENT_SECRET=${api}`);
console.log(`export CLI_CLIENT_ID=cli CLI_CLIENT_SECRET=${cli}`);
