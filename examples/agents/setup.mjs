#!/usr/bin/env node
// Prepares a running realmgate for the agent example of examples/agents, through its admin API:
// two realms as two trust domains (CONTRACT.md §15).
//
// - `tools` (the SaaS): the MCP server of examples/mcp as a registered resource, its scopes
//   notes:read and notes:write, JWT access tokens, the person alice, and the agent's client
//   there (`acme-agent`, the JWT bearer grant). It trusts `acme` for ID-JAGs and finds people by
//   their verified email (`link_by_email`).
// - `acme` (the company's identity provider): the same alice, and the agent's client there,
//   which signs people in (code flow) and may obtain ID-JAGs for `tools` (`id_jag_audiences`).
//
// It may run again: what exists is updated, and the clients get new secrets.
//
//   eval "$(ADMIN_TOKEN=… node examples/agents/setup.mjs)"
//
// Settings (environment): REALMGATE_URL (http://localhost:9000), ADMIN_TOKEN (required),
// IDP_REALM (acme), SAAS_REALM (tools), MCP_URL (http://localhost:4100/mcp),
// AGENT_REDIRECT_URI (http://127.0.0.1:4200/callback), DEMO_USERNAME (alice),
// DEMO_PASSWORD (correct horse battery).

import { adminApi } from '../admin-api.mjs';

const base = (process.env.REALMGATE_URL ?? 'http://localhost:9000').replace(/\/$/, '');
const adminToken = process.env.ADMIN_TOKEN;
const idpRealm = process.env.IDP_REALM ?? 'acme';
const saasRealm = process.env.SAAS_REALM ?? 'tools';
const mcpUrl = new URL(process.env.MCP_URL ?? 'http://localhost:4100/mcp').href;
const redirectUri = process.env.AGENT_REDIRECT_URI ?? 'http://127.0.0.1:4200/callback';
const username = process.env.DEMO_USERNAME ?? 'alice';
const password = process.env.DEMO_PASSWORD ?? 'correct horse battery';
const SCOPES = ['notes:read', 'notes:write'];
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const SAAS_CLIENT_ID = 'acme-agent';
const IDP_CLIENT_ID = 'notes-agent';

const { admin, realm, person: ensurePerson, client: ensureClient } = adminApi(base, adminToken);

/** A confidential client with this record, created or updated, with a new secret. */
const client = (realmName, clientId, record) => ensureClient(realmName, { client_id: clientId, ...record });

/** The person, with a verified email: link_by_email finds them by it on the other side. */
const person = (realmName) => ensurePerson(realmName, username, { password, claims: { name: 'Alice Example', email: `${username}@acme.example`, email_verified: true } });

// The SaaS: the MCP server's realm, as examples/mcp/setup.mjs prepares it, with the agent's client.
const saasIssuer = await realm(saasRealm, { stateless_tokens: true });
for (const scope of SCOPES) await admin('PUT', `/realms/${saasRealm}/scopes/${scope}`, { description: scope === 'notes:read' ? 'Read your notes' : 'Write notes for you' });
await admin('PUT', `/realms/${saasRealm}/resources`, { identifier: mcpUrl, name: 'Notes (MCP server)', scopes: SCOPES });
await person(saasRealm);
const saasSecret = await client(saasRealm, SAAS_CLIENT_ID, { client_name: 'Acme notes agent', grant_types: [JWT_BEARER], scope: SCOPES.join(' ') });

// The company's identity provider, whose agent client may obtain ID-JAGs for the SaaS.
const idpIssuer = await realm(idpRealm, {});
await person(idpRealm);
const idpSecret = await client(idpRealm, IDP_CLIENT_ID, {
  client_name: 'Notes agent',
  redirect_uris: [redirectUri],
  grant_types: ['authorization_code', TOKEN_EXCHANGE],
  scope: 'openid email',
  require_pkce: true,
  id_jag_audiences: [{ issuer: saasIssuer, client_id: SAAS_CLIENT_ID, scope: SCOPES.join(' ') }],
});

// The SaaS trusts the company for ID-JAGs: its key set, copied (a trusted issuer's jwks_uri must be https).
const keys = await (await fetch(`${idpIssuer}/connect/jwk_uri`)).json();
const trust = { jwks: keys, id_jag: true, link_by_email: true, client_ids: [SAAS_CLIENT_ID] };
const existing = (await admin('GET', `/realms/${saasRealm}/trusted-issuers`)).body;
const found = (Array.isArray(existing) ? existing : existing.trusted_issuers ?? []).find((issuer) => issuer.kind === 'jwt' && issuer.issuer === idpIssuer);
if (found) await admin('PATCH', `/realms/${saasRealm}/trusted-issuers/${found.id}`, trust);
else await admin('POST', `/realms/${saasRealm}/trusted-issuers`, { kind: 'jwt', issuer: idpIssuer, ...trust });

console.error(`setup: ${idpRealm} (identity provider) and ${saasRealm} (SaaS, resource ${mcpUrl}), person ${username} / ${password} in both`);
console.log(`export IDP_ISSUER=${idpIssuer}`);
console.log(`export SAAS_ISSUER=${saasIssuer}`);
console.log(`export MCP_URL=${mcpUrl}`);
console.log(`export AGENT_REDIRECT_URI=${redirectUri}`);
console.log(`export IDP_CLIENT_ID=${IDP_CLIENT_ID}`);
console.log(`export IDP_CLIENT_SECRET=${idpSecret}`);
console.log(`export SAAS_CLIENT_ID=${SAAS_CLIENT_ID}`);
console.log(`export SAAS_CLIENT_SECRET=${saasSecret}`);
