#!/usr/bin/env node
// An AI agent of the company "acme" that calls a tool of a SaaS MCP server for a person, under
// enterprise-managed authorization (the MCP authorization extension built on
// draft-ietf-oauth-identity-assertion-authz-grant, "ID-JAG"; docs/agents.md):
//
//   1. it signs the person in at the company's identity provider (code flow with PKCE, at a
//      loopback redirect URI: it prints the URL to open) and gets their ID token;
//   2. it trades the ID token at the identity provider for an ID-JAG addressed to the SaaS's
//      authorization server (token exchange): the company decides which agent reaches which tool;
//   3. it redeems the ID-JAG at the SaaS (JWT bearer grant) for an access token of the MCP server;
//   4. it calls the MCP server's tools whoami and add_note, and prints what they answer.
//
//   eval "$(node examples/agents/setup.mjs)"; node examples/agents/agent.mjs "remember the milk"
//
// Settings (environment, as setup.mjs exports them): IDP_ISSUER, SAAS_ISSUER, MCP_URL,
// AGENT_REDIRECT_URI, IDP_CLIENT_ID, IDP_CLIENT_SECRET, SAAS_CLIENT_ID, SAAS_CLIENT_SECRET.
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const env = (name) => process.env[name] ?? fail(`set ${name} (eval "$(node examples/agents/setup.mjs)")`);
const idpIssuer = env('IDP_ISSUER');
const saasIssuer = env('SAAS_ISSUER');
const mcpUrl = env('MCP_URL');
const redirectUri = new URL(env('AGENT_REDIRECT_URI'));
const idp = { id: env('IDP_CLIENT_ID'), secret: env('IDP_CLIENT_SECRET') };
const saas = { id: env('SAAS_CLIENT_ID'), secret: env('SAAS_CLIENT_SECRET') };
const SCOPE = 'notes:read notes:write';
const note = process.argv[2] ?? 'written by an agent';

function fail(message) {
  console.error(`agent: ${message}`);
  process.exit(1);
}

/** A token endpoint request with client_secret_basic; the JSON answer, or the process ends with the error. */
async function token(issuer, client, form, step) {
  const metadata = await (await fetch(`${issuer}/.well-known/openid-configuration`)).json();
  const response = await fetch(metadata.token_endpoint, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${encodeURIComponent(client.id)}:${encodeURIComponent(client.secret)}`).toString('base64')}` },
    body: new URLSearchParams(form),
  });
  const body = await response.json();
  if (!response.ok) fail(`${step}: ${body.error}: ${body.error_description}`);
  return body;
}

/** Step 1: the person signs in at the identity provider; the code comes back to the loopback redirect URI (RFC 8252 §7.3). */
async function signIn() {
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(16).toString('base64url');
  const nonce = randomBytes(16).toString('base64url');
  const metadata = await (await fetch(`${idpIssuer}/.well-known/openid-configuration`)).json();
  const authorization = new URL(metadata.authorization_endpoint);
  authorization.search = new URLSearchParams({
    response_type: 'code',
    client_id: idp.id,
    redirect_uri: redirectUri.href,
    scope: 'openid email',
    state,
    nonce,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  const code = await new Promise((resolve, reject) => {
    const server = createServer((request, response) => {
      const url = new URL(request.url, redirectUri);
      if (url.pathname !== redirectUri.pathname) return response.writeHead(404).end();
      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('Signed in: you may close this window and return to the agent.');
      server.close();
      if (url.searchParams.get('state') !== state) reject(new Error('the state does not match'));
      else if (url.searchParams.get('iss') !== idpIssuer) reject(new Error('the response is from another issuer (RFC 9207)'));
      else if (!url.searchParams.get('code')) reject(new Error(`sign-in refused: ${url.searchParams.get('error')}`));
      else resolve(url.searchParams.get('code'));
    });
    server.listen(Number(redirectUri.port), redirectUri.hostname, () => console.log(`open ${authorization.href}`));
  }).catch((error) => fail(error.message));
  const tokens = await token(idpIssuer, idp, { grant_type: 'authorization_code', code, redirect_uri: redirectUri.href, code_verifier: verifier }, 'code exchange');
  return tokens.id_token;
}

const idToken = await signIn();

// Step 2: the ID-JAG, for the SaaS's authorization server, the MCP server and its scopes.
const { access_token: idJag } = await token(
  idpIssuer,
  idp,
  {
    grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
    requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
    subject_token: idToken,
    subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
    audience: saasIssuer,
    resource: mcpUrl,
    scope: SCOPE,
  },
  'ID-JAG',
);
console.log('id-jag obtained');

// Step 3: the access token of the MCP server, from the SaaS.
const { access_token: accessToken, scope } = await token(
  saasIssuer,
  saas,
  { grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: idJag, resource: mcpUrl },
  'access token',
);
console.log(`access token for ${mcpUrl}: ${scope}`);

// Step 4: the tools.
const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { authorization: `Bearer ${accessToken}` } } });
const client = new Client({ name: 'acme-notes-agent', version: '1.0.0' });
await client.connect(transport);
for (const [name, args] of [['whoami', {}], ['add_note', { text: note }]]) {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) fail(`${name}: ${JSON.stringify(result.content)}`);
  console.log(`${name} ${JSON.stringify(result.structuredContent)}`);
}
await client.close();
