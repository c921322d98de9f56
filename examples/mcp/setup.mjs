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

const base = (process.env.REALMGATE_URL ?? 'http://localhost:9000').replace(/\/$/, '');
const adminToken = process.env.ADMIN_TOKEN;
const realm = process.env.REALM ?? 'notes';
const mcpUrl = new URL(process.env.MCP_URL ?? 'http://localhost:4100/mcp').href;
const username = process.env.DEMO_USERNAME ?? 'alice';
const password = process.env.DEMO_PASSWORD ?? 'correct horse battery';
const SCOPES = ['notes:read', 'notes:write'];

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

await waitForRealmgate();
const settings = {
  stateless_tokens: true,
  open_registration: true,
  registration_grant_types: ['authorization_code', 'refresh_token'],
  registration_scopes: ['openid', ...SCOPES],
};
if ((await admin('POST', '/realms', { name: realm, settings }, [409])).status === 409) {
  await admin('PATCH', `/realms/${realm}`, { settings });
}
await admin('PUT', `/realms/${realm}/scopes/notes:read`, { description: 'Read your notes' });
await admin('PUT', `/realms/${realm}/scopes/notes:write`, { description: 'Write notes for you' });
// Tokens for the MCP server carry only its scopes, whatever else the client was granted.
await admin('PUT', `/realms/${realm}/resources`, { identifier: mcpUrl, name: 'Notes (MCP server)', scopes: SCOPES });

const person = { password, claims: { name: 'Alice Example', email: 'alice@example.com', email_verified: true } };
if ((await admin('POST', `/realms/${realm}/users`, { username, ...person }, [409])).status === 409) {
  await admin('PATCH', `/realms/${realm}/users/${encodeURIComponent(username)}`, person);
}

const issuer = (await admin('GET', `/realms/${realm}`)).body.issuer;
console.error(`setup: realm ${realm} (open registration, JWT access tokens), user ${username} / ${password}, resource ${mcpUrl}`);
console.log(`export ISSUER=${issuer}`);
console.log(`export MCP_URL=${mcpUrl}`);
