import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestApp, startTestApp } from '../support/app.js';
import { type TestMailServer, startMailServer } from '../support/mail.js';
import { buildOnce } from '../support/process.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { cliOk, fieldLines, runCli, tableRows } from './support.js';

/**
 * `realmgate user send-reset|send-verification|remove-totp|passkeys|delete-passkey|consents|revoke-consent`
 * and `realmgate webhook put|list|show|delete` (CONTRACT.md §16) against a listening server.
 */
// Each test starts several CLI processes: on a loaded machine, one takes seconds.
const SLOW = 120_000;

describe('realmgate operator actions and webhooks', () => {
  let t: TestApp;
  let mail: TestMailServer;
  let receiver: Receiver;
  let env: Record<string, string>;
  const cli = (args: string[], input?: string) => cliOk(args, { env, ...(input === undefined ? {} : { input }) });

  beforeAll(async () => {
    [mail, receiver] = await Promise.all([startMailServer(), startReceiver()]);
    [t] = await Promise.all([startTestApp({ listen: true, mail: mail.settings, outboundAllow: ['127.0.0.1'] }), buildOnce()]);
    env = { REALMGATE_URL: t.baseUrl, REALMGATE_ADMIN_TOKEN: ADMIN_TOKEN };
    await t.admin.createRealm('shop', { password_reset: true });
    await t.admin.request('POST', '/realms/shop/users', { username: 'alice', password: 'correct horse battery', claims: { email: 'alice@example.com' } });
  }, 300_000);
  afterAll(async () => {
    await t?.close();
    await Promise.all([mail?.close(), receiver?.close()]);
  });

  it('mails a reset and a verification link, and names the reason of a refusal', async () => {
    expect((await cli(['user', 'send-reset', 'shop', 'alice'])).stdout).toContain('alice of shop was mailed a link to choose a new password.');
    expect((await mail.nextMail('alice@example.com')).text).toContain('/reset?ticket=');
    await cli(['user', 'send-verification', 'shop', 'alice']);
    expect((await mail.nextMail('alice@example.com')).text).toContain('/verify?ticket=');
    await t.admin.request('POST', '/realms/shop/users', { username: 'bob', password: 'correct horse battery' });
    const refused = await runCli(['user', 'send-reset', 'shop', 'bob'], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^realmgate: conflict: the person has no email address/);
  }, SLOW);

  it('lists and withdraws consents, removes a TOTP generator, lists passkeys', async () => {
    const client = await t.admin.createClient('shop', { client_id: 'web', grant_types: ['client_credentials'] });
    const user = (await t.admin.request('GET', '/realms/shop/users/alice')).json() as { sub: string };
    await t.store.consents.grant('shop', user.sub, client.client_id, ['openid', 'profile']);
    expect(tableRows((await cli(['user', 'consents', 'shop', 'alice'])).stdout)).toEqual([expect.objectContaining({ CLIENT_ID: 'web', SCOPE: 'openid profile' })]);
    await cli(['user', 'revoke-consent', 'shop', 'alice', 'web']);
    expect(tableRows((await cli(['user', 'consents', 'shop', 'alice'])).stdout)).toEqual([]);

    await t.admin.request('POST', '/realms/shop/users/alice/totp');
    await cli(['user', 'remove-totp', 'shop', 'alice']);
    expect((await runCli(['user', 'remove-totp', 'shop', 'alice'], { env })).stderr).toMatch(/^realmgate: not_found/);
    expect(JSON.parse((await cli(['user', 'passkeys', 'shop', 'alice', '--json'])).stdout)).toEqual({ passkeys: [] });
  }, SLOW);

  it('puts a webhook with its secret from standard input, shows it without the secret, deletes it', async () => {
    const secret = 'a-secret-of-the-receiver-0123456789';
    const put = await cli(['webhook', 'put', 'shop', 'siem', '--receiver', receiver.url, '--event', 'user.created', '--event', 'user.deleted', '--secret-stdin'], `${secret}\n`);
    expect(fieldLines(put.stdout)).toMatchObject({ name: 'siem', url: receiver.url });
    const shown = await cli(['webhook', 'show', 'shop', 'siem', '--json']);
    expect(JSON.parse(shown.stdout)).toMatchObject({ events: ['user.created', 'user.deleted'] });
    expect(shown.stdout + put.stdout).not.toContain(secret);
    expect(tableRows((await cli(['webhook', 'list', 'shop'])).stdout).map((row) => row.NAME)).toEqual(['siem']);
    const noSecret = await runCli(['webhook', 'put', 'shop', 'siem', '--receiver', receiver.url, '--event', 'user.created'], { env });
    expect(noSecret.code).not.toBe(0);
    await cli(['webhook', 'delete', 'shop', 'siem']);
    expect(tableRows((await cli(['webhook', 'list', 'shop'])).stdout)).toEqual([]);
  }, SLOW);
});
