#!/usr/bin/env node
// Prepares a running realmgate for the MCP server of examples/mcp, through its admin API: a
// realm whose clients register themselves (open registration, as MCP clients do) with the
// scopes notes:read and notes:write, JWT access tokens, a person to sign in as, and the MCP
// server's URL as a registered resource (RFC 8707), so that its tokens name it in `aud`.
// It may run again: what exists is updated.
//
//   eval "$(ADMIN_TOKEN=… node examples/mcp/setup.mjs)"    # exports ISSUER and MCP_URL
//
// Settings (environment): REALMGATE_URL (http://localhost:9000), ADMIN_TOKEN (required),
// REALM (notes), MCP_URL (http://localhost:4100/mcp, where examples/mcp/server.mjs answers),
// DEMO_USERNAME (alice), DEMO_PASSWORD (correct horse battery).

import { adminApi } from '../admin-api.mjs';

const base = (process.env.REALMGATE_URL ?? 'http://localhost:9000').replace(/\/$/, '');
const adminToken = process.env.ADMIN_TOKEN;
const realm = process.env.REALM ?? 'notes';
const mcpUrl = new URL(process.env.MCP_URL ?? 'http://localhost:4100/mcp').href;
const username = process.env.DEMO_USERNAME ?? 'alice';
const password = process.env.DEMO_PASSWORD ?? 'correct horse battery';
const SCOPES = ['notes:read', 'notes:write'];

const { admin, waitForRealmgate, realm: ensureRealm, person: ensurePerson } = adminApi(base, adminToken);

await waitForRealmgate();
const settings = {
  stateless_tokens: true,
  open_registration: true,
  registration_grant_types: ['authorization_code', 'refresh_token'],
  registration_scopes: ['openid', ...SCOPES],
};
const issuer = await ensureRealm(realm, settings);
await admin('PUT', `/realms/${realm}/scopes/notes:read`, { description: 'Read your notes' });
await admin('PUT', `/realms/${realm}/scopes/notes:write`, { description: 'Write notes for you' });
// Tokens for the MCP server carry only its scopes, whatever else the client was granted.
await admin('PUT', `/realms/${realm}/resources`, { identifier: mcpUrl, name: 'Notes (MCP server)', scopes: SCOPES });

await ensurePerson(realm, username, { password, claims: { name: 'Alice Example', email: 'alice@example.com', email_verified: true } });

console.error(`setup: realm ${realm} (open registration, JWT access tokens), user ${username} / ${password}, resource ${mcpUrl}`);
console.log(`export ISSUER=${issuer}`);
console.log(`export MCP_URL=${mcpUrl}`);
