import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestApp, freePort, startTestApp } from '../support/app.js';
import { PROJECT_ROOT, ServerProcess, buildOnce, serverEnv, stopAll, waitForStatus } from '../support/process.js';
import { HttpBrowser } from './http-browser.js';

const run = promisify(execFile);

/** Resolves once `read()` matches, polling; rejects after `ms`. */
async function eventually(read: () => string, pattern: RegExp, ms: number): Promise<RegExpMatchArray> {
  const deadline = Date.now() + ms;
  for (;;) {
    const match = read().match(pattern);
    if (match) return match;
    if (Date.now() > deadline) throw new Error(`${pattern} did not appear within ${ms} ms in:\n${read()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * examples/agents run as its README says against a realmgate listening on a port:
 * examples/agents/setup.mjs prepares the company's identity provider (`acme`) and the SaaS
 * (`tools`), examples/mcp/server.mjs is the SaaS's MCP server, and examples/agents/agent.mjs
 * signs alice in at acme (here a browser made of fetch), obtains an ID-JAG, redeems it at tools
 * and calls the tools with the MCP SDK's client.
 */
describe('examples/agents', () => {
  let t: TestApp;
  let settings: Record<string, string>;

  beforeAll(async () => {
    // The MCP server imports realmgate/resource-server, which resolves to dist/.
    const [app, mcpPort, agentPort] = await Promise.all([startTestApp({ listen: true }), freePort(), freePort(), buildOnce()]);
    t = app;
    const setup = async () => {
      const { stdout } = await run(process.execPath, ['examples/agents/setup.mjs'], {
        cwd: PROJECT_ROOT,
        env: serverEnv({ REALMGATE_URL: t.baseUrl, ADMIN_TOKEN, MCP_URL: `http://127.0.0.1:${mcpPort}/mcp`, AGENT_REDIRECT_URI: `http://127.0.0.1:${agentPort}/callback` }),
      });
      return Object.fromEntries([...stdout.matchAll(/([A-Z_]+)=(\S+)/g)].map(([, name, value]) => [name!, value!]));
    };
    await setup();
    // Again, as someone who runs it twice: it updates what exists and hands out new secrets.
    settings = await setup();
    const server = new ServerProcess(process.execPath, ['examples/mcp/server.mjs'], serverEnv({ LOG_LEVEL: 'warn', ISSUER: settings.SAAS_ISSUER!, MCP_URL: settings.MCP_URL! }));
    await waitForStatus(server, `http://127.0.0.1:${mcpPort}/healthz`, 200, Date.now() + 20_000);
  }, 300_000);
  afterAll(async () => {
    await stopAll();
    await t?.close();
  });

  it('setup exports both realms, the MCP server and the two clients of the agent', () => {
    expect(settings).toMatchObject({
      IDP_ISSUER: `${t.baseUrl}/oauth2/acme`,
      SAAS_ISSUER: `${t.baseUrl}/oauth2/tools`,
      IDP_CLIENT_ID: 'notes-agent',
      SAAS_CLIENT_ID: 'acme-agent',
    });
    expect(settings.IDP_CLIENT_SECRET).toMatch(/^\S{20,}$/);
    expect(settings.SAAS_CLIENT_SECRET).toMatch(/^\S{20,}$/);
  });

  it('the agent signs alice in at acme, obtains an ID-JAG, redeems it at tools and calls the tools', async () => {
    const agent = new ServerProcess(process.execPath, ['examples/agents/agent.mjs', 'remember the milk'], serverEnv(settings));
    const [, url] = await eventually(() => agent.stdout, /^open (\S+)$/m, 20_000);
    expect(url!.startsWith(`${settings.IDP_ISSUER}/authorize?`)).toBe(true);

    const browser = new HttpBrowser();
    const signIn = await browser.get(url!);
    expect(signIn.url.startsWith(`${settings.IDP_ISSUER}/login`)).toBe(true);
    const consent = await browser.submit(signIn, { username: 'alice', password: 'correct horse battery' });
    // The consent page says that the agent may present alice's sign-in to the SaaS.
    expect(consent.body).toContain('may also present your sign-in to these services');
    expect(consent.body).toContain(`${new URL(settings.SAAS_ISSUER!).host}/oauth2/tools`);
    const back = await browser.submit(consent, { decision: 'allow' });
    expect(back.url.startsWith(settings.AGENT_REDIRECT_URI!)).toBe(true);
    expect(back.body).toContain('Signed in');

    const exit = await agent.waitForExit(30_000);
    expect(exit.code, agent.output).toBe(0);
    expect(agent.stdout).toContain('id-jag obtained');
    expect(agent.stdout).toContain(`access token for ${settings.MCP_URL}: notes:read notes:write`);
    const alice = (await t.admin.request('GET', '/realms/tools/users/alice')).json() as { sub: string };
    const whoami = JSON.parse(agent.stdout.match(/^whoami (.*)$/m)![1]!);
    expect(whoami).toEqual({ sub: alice.sub, client_id: 'acme-agent', scope: 'notes:read notes:write', aud: settings.MCP_URL });
    expect(JSON.parse(agent.stdout.match(/^add_note (.*)$/m)![1]!)).toEqual({ note: { id: 1, text: 'remember the milk' }, count: 1 });

    // Both sides wrote it down.
    const issued = (await t.admin.request('GET', '/realms/acme/events?type=id_jag.issued')).json() as { events: Array<{ details: Record<string, unknown> }> };
    expect(issued.events[0]?.details).toMatchObject({ audience: settings.SAAS_ISSUER, audience_client_id: 'acme-agent' });
  });
});
