import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { promisify } from 'node:util';
import { auth, type OAuthClientProvider, type OAuthDiscoveryState, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { decodeJwt } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSkipReason, launchChromium, signIn, startCallbackServer, startsWith } from '../browser/support.js';
import { ADMIN_TOKEN, type TestApp, freePort, startTestApp } from '../support/app.js';
import { PROJECT_ROOT, ServerProcess, buildOnce, serverEnv, stopAll, waitForStatus } from '../support/process.js';

const run = promisify(execFile);

/**
 * The MCP client of the SDK's own: it keeps what `auth()` hands it, and writes down where it
 * was told to send the person, for the test to go there in Chromium.
 */
class RecordingProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  discovery: OAuthDiscoveryState | undefined;
  verifier = '';
  lastState = '';
  readonly authorizations: URL[] = [];

  constructor(
    readonly redirectUrl: string,
    client?: OAuthClientInformationMixed,
    /**
     * Whether to keep refresh tokens. auth() refreshes rather than asks the person whenever it
     * holds one, and a refresh cannot widen the scope (RFC 6749 §6), so a client that must step
     * up keeps none.
     */
    private readonly keepRefreshTokens = true,
  ) {
    this.client = client;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'MCP test client',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    this.lastState = randomBytes(16).toString('base64url');
    return this.lastState;
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(information: OAuthClientInformationMixed): void {
    this.client = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens): void {
    if (this.keepRefreshTokens) this.saved = tokens;
    else {
      const { refresh_token: _dropped, ...rest } = tokens;
      this.saved = rest;
    }
  }
  redirectToAuthorization(url: URL): void {
    this.authorizations.push(url);
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
}

/** What the MCP server answered the client, request by request. */
interface Exchange {
  method: string;
  url: string;
  status: number;
  challenge: string | null;
}

/**
 * examples/mcp run as its README says: examples/mcp/setup.mjs prepares a realm of realmgate
 * listening on a port, examples/mcp/server.mjs runs as a process on its own port, and the
 * MCP SDK's client discovers the realm from the server (RFC 9728, then RFC 8414), registers
 * itself (RFC 7591), has alice sign in on realmgate's pages in Chromium (PKCE, RFC 8707
 * `resource`), and calls the tools; then, with a token of less scope, it is refused
 * `insufficient_scope` and steps up.
 */
describe.skipIf(browserSkipReason('test/examples/mcp.test.ts'))('examples/mcp', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let callback: { server: Server; redirectUri: string };
  let issuer: string;
  let mcpUrl: string;
  const exchanges: Exchange[] = [];
  /** The client the SDK registered in the first flow, reused by the second as a client keeps its registration. */
  let registered: OAuthClientInformationMixed | undefined;

  /** fetch, writing down the MCP server's answers (not realmgate's). */
  const recordingFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await fetch(input, init);
    const url = input instanceof Request ? input.url : String(input);
    if (url.startsWith(new URL(mcpUrl).origin)) {
      exchanges.push({ method: init?.method ?? 'GET', url, status: response.status, challenge: response.headers.get('www-authenticate') });
    }
    return response;
  };

  /** Follows an authorization URL in Chromium as alice, signing in and allowing when asked; the code at the redirect URI. */
  async function authorizeInBrowser(url: URL, expectedState: string): Promise<string> {
    const atCallback = startsWith(`${callback.redirectUri}?`);
    await page.goto(url.href);
    if (page.url().startsWith(`${issuer}/login`)) {
      await signIn(page, 'alice', 'correct horse battery', (next) => next.href.startsWith(`${issuer}/consent`) || atCallback.test(next.href));
    }
    if (page.url().startsWith(`${issuer}/consent`)) {
      await Promise.all([page.waitForURL(atCallback), page.getByRole('button', { name: 'Allow' }).click()]);
    }
    const back = new URL(page.url());
    expect(back.href).toMatch(atCallback);
    expect(back.searchParams.get('state')).toBe(expectedState);
    return back.searchParams.get('code')!;
  }

  const connect = async (provider: RecordingProvider) => {
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider, fetch: recordingFetch });
    const client = new Client({ name: 'mcp-test', version: '1.0.0' });
    return { transport, client, connecting: client.connect(transport) };
  };

  const resultOf = (result: Awaited<ReturnType<Client['callTool']>>): Record<string, unknown> => {
    expect(result.isError).toBeFalsy();
    return result.structuredContent as Record<string, unknown>;
  };

  beforeAll(async () => {
    // The server imports realmgate/resource-server, which resolves to dist/ through the package's own exports.
    const [app, mcpPort, , server, chromium] = await Promise.all([startTestApp({ listen: true }), freePort(), buildOnce(), startCallbackServer(), launchChromium()]);
    t = app;
    callback = server;
    browser = chromium;
    page = await (await browser.newContext()).newPage();
    const setup = () =>
      run(process.execPath, ['examples/mcp/setup.mjs'], {
        cwd: PROJECT_ROOT,
        env: serverEnv({ REALMGATE_URL: t.baseUrl, ADMIN_TOKEN, MCP_URL: `http://127.0.0.1:${mcpPort}/mcp` }),
      });
    await setup();
    // Again, as someone who runs it twice: it updates what exists.
    const { stdout } = await setup();
    const exported = Object.fromEntries([...stdout.matchAll(/([A-Z_]+)=(\S+)/g)].map(([, name, value]) => [name!, value!]));
    issuer = exported.ISSUER!;
    mcpUrl = exported.MCP_URL!;
    const child = new ServerProcess(process.execPath, ['examples/mcp/server.mjs'], serverEnv({ LOG_LEVEL: 'warn', ISSUER: issuer, MCP_URL: mcpUrl }));
    await waitForStatus(child, `http://127.0.0.1:${mcpPort}/healthz`, 200, Date.now() + 20_000);
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await stopAll();
    await new Promise((resolve) => callback?.server.close(resolve));
    await t?.close();
  });

  it('setup exports the realm and the MCP server, a resource of the realm', async () => {
    expect(issuer).toBe(`${t.baseUrl}/oauth2/notes`);
    expect(mcpUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const resource = await t.admin.request('GET', `/realms/notes/resources?identifier=${encodeURIComponent(mcpUrl)}`);
    expect(resource.statusCode).toBe(200);
    expect(resource.json()).toMatchObject({ identifier: mcpUrl, scopes: ['notes:read', 'notes:write'] });
  });

  it('the SDK client discovers the realm, registers, signs alice in with PKCE and resource, and calls the tools', async () => {
    const provider = new RecordingProvider(callback.redirectUri);
    const first = await connect(provider);
    // No token yet: the server's 401 starts the SDK's auth(), which ends at the person's browser.
    await expect(first.connecting).rejects.toBeInstanceOf(UnauthorizedError);
    expect(exchanges[0]).toMatchObject({ method: 'POST', status: 401 });
    expect(exchanges[0]!.challenge).toContain(`resource_metadata="${new URL(mcpUrl).origin}/.well-known/oauth-protected-resource/mcp"`);

    // RFC 9728 named the realm; its RFC 8414 metadata the endpoints, registration among them.
    expect(provider.discovery).toMatchObject({
      authorizationServerUrl: issuer,
      resourceMetadata: { resource: mcpUrl, authorization_servers: [issuer], scopes_supported: ['notes:read', 'notes:write'] },
      authorizationServerMetadata: { issuer, registration_endpoint: `${issuer}/connect/register` },
    });
    // Dynamic registration: a public client of the realm, with the scopes the server lists.
    const clientId = provider.client!.client_id;
    const record = await t.admin.request('GET', `/realms/notes/clients/${encodeURIComponent(clientId)}`);
    expect(record.statusCode).toBe(200);
    expect(record.json()).toMatchObject({ token_endpoint_auth_method: 'none', scope: 'notes:read notes:write', redirect_uris: [callback.redirectUri] });

    const authorization = provider.authorizations.at(-1)!;
    expect(authorization.href.startsWith(`${issuer}/authorize?`)).toBe(true);
    expect(Object.fromEntries(authorization.searchParams)).toMatchObject({
      client_id: clientId,
      response_type: 'code',
      code_challenge_method: 'S256',
      resource: mcpUrl,
      scope: 'notes:read notes:write',
    });
    const code = await authorizeInBrowser(authorization, provider.lastState);
    await first.transport.finishAuth(code);
    registered = provider.client;
    await first.client.close();

    // The token is for the MCP server alone (RFC 8707), with its scopes only.
    const claims = decodeJwt(provider.saved!.access_token);
    expect(claims).toMatchObject({ iss: issuer, aud: mcpUrl, client_id: clientId, scope: 'notes:read notes:write' });

    const { client, connecting } = await connect(provider);
    await connecting;
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name).sort()).toEqual(['add_note', 'whoami']);
    const alice = (await t.admin.request('GET', '/realms/notes/users/alice')).json() as { sub: string };
    expect(resultOf(await client.callTool({ name: 'whoami', arguments: {} }))).toEqual({ sub: alice.sub, client_id: clientId, scope: 'notes:read notes:write', aud: mcpUrl });
    expect(resultOf(await client.callTool({ name: 'add_note', arguments: { text: 'buy tea' } }))).toEqual({ note: { id: 1, text: 'buy tea' }, count: 1 });
    await client.close();
  });

  it('a token without notes:write is refused add_note with insufficient_scope, and the SDK client steps up', async () => {
    // The same registered client, now asking for notes:read only (a fresh session of it, without refresh tokens).
    expect(registered).toBeDefined();
    const provider = new RecordingProvider(callback.redirectUri, registered, false);
    expect(await auth(provider, { serverUrl: mcpUrl, scope: 'notes:read', fetchFn: recordingFetch })).toBe('REDIRECT');
    const code = await authorizeInBrowser(provider.authorizations.at(-1)!, provider.lastState);
    expect(await auth(provider, { serverUrl: mcpUrl, scope: 'notes:read', authorizationCode: code, fetchFn: recordingFetch })).toBe('AUTHORIZED');
    expect(provider.saved!.scope).toBe('notes:read');

    const { client, transport, connecting } = await connect(provider);
    await connecting;
    expect(resultOf(await client.callTool({ name: 'whoami', arguments: {} }))).toMatchObject({ scope: 'notes:read' });

    const before = exchanges.length;
    await expect(client.callTool({ name: 'add_note', arguments: { text: 'call mum' } })).rejects.toBeInstanceOf(UnauthorizedError);
    const refused = exchanges.slice(before).find((exchange) => exchange.status === 403);
    expect(refused?.challenge).toMatch(/^Bearer /);
    expect(refused?.challenge).toContain('error="insufficient_scope"');
    expect(refused?.challenge).toContain('scope="notes:read notes:write"');

    // The SDK asked the person again, for what the challenge named.
    const stepUp = provider.authorizations.at(-1)!;
    expect(stepUp.searchParams.get('scope')).toBe('notes:read notes:write');
    expect(stepUp.searchParams.get('resource')).toBe(mcpUrl);
    await transport.finishAuth(await authorizeInBrowser(stepUp, provider.lastState));
    expect(decodeJwt(provider.saved!.access_token)).toMatchObject({ aud: mcpUrl, scope: 'notes:read notes:write' });
    expect(resultOf(await client.callTool({ name: 'add_note', arguments: { text: 'call mum' } }))).toEqual({ note: { id: 2, text: 'call mum' }, count: 2 });
    await client.close();
  });

  it('the server refuses a token of the realm that is not for it (no resource: aud is the issuer)', async () => {
    const service = await t.admin.serviceClient('notes', 'notes:read');
    const response = await fetch(`${issuer}/access_token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${service.clientId}:${service.secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'notes:read' }),
    });
    const { access_token: token } = (await response.json()) as { access_token: string };
    expect(decodeJwt(token).aud).toBe(issuer);
    const call = await fetch(mcpUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(call.status).toBe(401);
    expect(call.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });
});
