import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { TestBrowser, codeFlowSetup, obtainCode } from '../support/flow.js';
import { PROJECT_ROOT } from '../support/process.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { section } from './support.js';

/**
 * docs/logout.md's verifyLogoutToken, as an application team copies it: run against a listening
 * realmgate whose logout token a real receiver got, it answers the session's sid, flags the
 * same token's second arrival as a replay, and refuses a token whose signature was tampered with.
 */
const DOC = 'docs/logout.md';

describe('docs/logout.md: receiving a logout token with jose', () => {
  let t: TestApp;
  let receiver: Receiver;
  let moduleFile: string;

  beforeAll(async () => {
    receiver = await startReceiver('/oidc/backchannel-logout');
    t = await startTestApp({ listen: true, outboundAllow: ['127.0.0.1'], outbox: { pollMs: 200 } });
    const code = [...section(DOC, 'Receiving a logout token').matchAll(/```js\n([\s\S]*?)```/g)][0]![1]!;
    expect(code).toContain('export async function verifyLogoutToken');
    const dir = join(PROJECT_ROOT, 'node_modules', '.cache');
    mkdirSync(dir, { recursive: true });
    moduleFile = join(dir, `logout-doc-${randomBytes(6).toString('hex')}.mjs`);
    writeFileSync(moduleFile, code.replace("'https://auth.example.com/oauth2/acme'", `process.env.LOGOUT_DOC_ISSUER`).replace("'shop'", 'process.env.LOGOUT_DOC_CLIENT'));
  });
  afterAll(async () => {
    rmSync(moduleFile, { force: true });
    await t?.close();
    await receiver?.close();
  });

  it('verifies a real logout token, sees its replay, refuses a forged one', async () => {
    const setup = await codeFlowSetup(t.admin, 'root', { client: { backchannel_logout_uri: receiver.url } });
    await obtainCode(new TestBrowser(t.app, t.baseUrl), 'root', { clientId: setup.clientId, username: setup.username, password: setup.password });
    expect((await t.admin.request('DELETE', `/realms/root/users/${setup.username}/sessions`)).statusCode).toBe(204);
    const [request] = await receiver.waitFor(1);
    const token = new URLSearchParams(request!.body).get('logout_token')!;

    process.env.LOGOUT_DOC_ISSUER = `${t.baseUrl}/oauth2`;
    process.env.LOGOUT_DOC_CLIENT = setup.clientId;
    const { verifyLogoutToken } = (await import(pathToFileURL(moduleFile).href)) as {
      verifyLogoutToken(token: string): Promise<{ sub: string; sid: string; replay: boolean }>;
    };
    const first = await verifyLogoutToken(token);
    expect(first.sid).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.replay).toBe(false);
    expect((await verifyLogoutToken(token)).replay).toBe(true);
    const [header, payload, signature] = token.split('.');
    const forged = `${header}.${payload}.${signature!.slice(0, -4)}${signature!.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
    await expect(verifyLogoutToken(forged)).rejects.toThrow();
  });
});
