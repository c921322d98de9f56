import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestApp, startTestApp } from '../support/app.js';
import { basic, postForm, realmPath } from '../support/oauth.js';
import { buildOnce } from '../support/process.js';
import { cliOk, fieldLines, runCli, tableRows } from './support.js';

/**
 * Every admin command of `realmgate` against a listening server, as a shell user runs them:
 * what they print (tables, --json), and that what they did is what the server then does.
 */
describe('realmgate admin commands', () => {
  let t: TestApp;
  let env: Record<string, string>;
  const cli = (args: string[], options: { input?: string; env?: Record<string, string> } = {}) =>
    cliOk(args, { ...options, env: { ...env, ...options.env } });

  beforeAll(async () => {
    [t] = await Promise.all([startTestApp({ listen: true }), buildOnce()]);
    env = { REALMGATE_URL: t.baseUrl, REALMGATE_ADMIN_TOKEN: ADMIN_TOKEN };
    await t.admin.createRealm('shop');
    await t.admin.putScope('shop', 'orders:read');
  });

  afterAll(() => t?.close());

  const adminGet = async (path: string) => (await t.admin.request('GET', path)).json();
  const tokenRequest = (realm: string, form: Record<string, string>, authorization: string) =>
    postForm(t.app, `${realmPath(realm)}/access_token`, form, { authorization });

  it('realm create takes settings; realm set changes only those named, values read as JSON where they are JSON', async () => {
    const created = await cli(['realm', 'create', 'demo', 'access_token_lifetime=600', 'require_pkce=true']);
    const head = fieldLines(created.stdout);
    expect(head.name).toBe('demo');
    expect(head.issuer).toBe(`${t.baseUrl}/oauth2/demo`);
    const settings = Object.fromEntries(tableRows(created.stdout.split('\n\n')[1]!).map((row) => [row.SETTING, row.VALUE]));
    expect(settings).toMatchObject({ access_token_lifetime: '600', require_pkce: 'true', signing_alg: 'ES256', ciba_notification_url: 'null' });

    const set = await cli(['realm', 'set', 'demo', 'signing_alg=RS256', 'authentication=["password","otp"]', 'rate_limit_token=null', '--json']);
    const answer = JSON.parse(set.stdout) as { settings: Record<string, unknown> };
    expect(answer.settings).toMatchObject({ signing_alg: 'RS256', authentication: ['password', 'otp'], rate_limit_token: null, access_token_lifetime: 600 });
    expect(((await adminGet('/realms/demo')) as { settings: unknown }).settings).toEqual(answer.settings);

    const shown = await cli(['realm', 'show', 'demo']);
    expect(shown.stdout).toMatch(/^authentication\s+password otp$/m);
  });

  it('realm list: a table, and with --json the admin API answer as it is', async () => {
    const [human, json] = await Promise.all([cli(['realm', 'list']), cli(['realm', 'list', '--json'])]);
    const rows = tableRows(human.stdout);
    expect(rows).toContainEqual(expect.objectContaining({ NAME: 'root', ISSUER: `${t.baseUrl}/oauth2` }));
    expect(rows).toContainEqual(expect.objectContaining({ NAME: 'shop', ISSUER: `${t.baseUrl}/oauth2/shop` }));
    expect(JSON.parse(json.stdout)).toEqual(await adminGet('/realms'));
  });

  it('client create shows the secret once and clearly; it works at the token endpoint; list and show; rotate-secret replaces it', async () => {
    const created = await cli([
      'client', 'create', 'shop', '--client-id', 'billing', '--name', 'Billing', '--grant-type', 'client_credentials',
      '--scope', 'orders:read', 'introspect_any_token=true',
    ]);
    const record = fieldLines(created.stdout);
    expect(record).toMatchObject({ client_id: 'billing', client_type: 'confidential', client_name: 'Billing', introspect_any_token: 'true' });
    const secret = record.client_secret!;
    expect(secret).toMatch(/^[\w-]{40,}$/);
    expect(created.stdout.trimEnd().split('\n').at(-1)).toMatch(/^client_secret\s+/); // last, where the eye ends
    expect(created.stderr).toMatch(/secret is shown this once/);
    expect((await tokenRequest('shop', { grant_type: 'client_credentials' }, basic('billing', secret))).statusCode).toBe(200);

    const [list, shown, publicClient] = await Promise.all([
      cli(['client', 'list', 'shop']),
      cli(['client', 'show', 'shop', 'billing', '--json']),
      cli([
        'client', 'create', 'shop', '--public', '--redirect-uri', 'https://app.example/cb', '--redirect-uri', 'https://app.example/cb2',
        '--backchannel-logout-uri', 'https://app.example/backchannel-logout', '--json',
      ]),
    ]);
    expect(tableRows(list.stdout)).toContainEqual({
      CLIENT_ID: 'billing', TYPE: 'confidential', NAME: 'Billing', AUTH_METHOD: 'client_secret_basic', GRANT_TYPES: 'client_credentials',
    });
    expect(shown.stdout).not.toContain(secret);
    expect(JSON.parse(shown.stdout)).toEqual(await adminGet('/realms/shop/clients/billing'));
    const spa = JSON.parse(publicClient.stdout) as Record<string, unknown>;
    expect(spa).toMatchObject({
      client_type: 'public',
      token_endpoint_auth_method: 'none',
      redirect_uris: ['https://app.example/cb', 'https://app.example/cb2'],
      backchannel_logout_uri: 'https://app.example/backchannel-logout',
    });
    expect(spa.client_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(spa).not.toHaveProperty('client_secret');
    expect(publicClient.stderr).toBe('');

    const rotated = await cli(['client', 'rotate-secret', 'shop', 'billing']);
    const newSecret = fieldLines(rotated.stdout).client_secret!;
    expect(newSecret).not.toBe(secret);
    expect(rotated.stderr).toMatch(/secret is shown this once/);
    expect((await tokenRequest('shop', { grant_type: 'client_credentials' }, basic('billing', secret))).statusCode).toBe(401);
    expect((await tokenRequest('shop', { grant_type: 'client_credentials' }, basic('billing', newSecret))).statusCode).toBe(200);
  });

  it('client create and update set the logout, JARM and CIBA fields by options; a bad value is refused with the field named', async () => {
    const created = await cli([
      'client', 'create', 'shop', '--client-id', 'bank', '--grant-type', 'urn:openid:params:grant-type:ciba', '--scope', 'openid',
      '--backchannel-logout-uri', 'https://bank.example/bc-logout', '--backchannel-logout-session-required', 'true',
      '--frontchannel-logout-uri', 'https://bank.example/fc-logout', '--frontchannel-logout-session-required', 'true',
      '--authorization-signed-response-alg', 'ES256',
      '--backchannel-token-delivery-mode', 'push', '--backchannel-client-notification-endpoint', 'https://bank.example/ciba', '--json',
    ]);
    const fields = {
      backchannel_logout_uri: 'https://bank.example/bc-logout',
      backchannel_logout_session_required: true,
      frontchannel_logout_uri: 'https://bank.example/fc-logout',
      frontchannel_logout_session_required: true,
      authorization_signed_response_alg: 'ES256',
      backchannel_token_delivery_mode: 'push',
      backchannel_client_notification_endpoint: 'https://bank.example/ciba',
    };
    expect(JSON.parse(created.stdout)).toMatchObject(fields);
    expect(await adminGet('/realms/shop/clients/bank')).toMatchObject(fields);

    await cli(['client', 'update', 'shop', 'bank', '--backchannel-token-delivery-mode', 'ping', '--backchannel-logout-session-required', 'false']);
    expect(await adminGet('/realms/shop/clients/bank')).toMatchObject({ ...fields, backchannel_token_delivery_mode: 'ping', backchannel_logout_session_required: false });

    const refused = await runCli(['client', 'update', 'shop', 'bank', '--backchannel-token-delivery-mode', 'long-poll'], { env });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/backchannel_token_delivery_mode/);
    const notBoolean = await runCli(['client', 'update', 'shop', 'bank', '--frontchannel-logout-session-required', 'yes'], { env });
    expect(notBoolean.code).not.toBe(0);
    expect(notBoolean.stderr).toMatch(/true or false/);
    expect(await adminGet('/realms/shop/clients/bank')).toMatchObject({ backchannel_token_delivery_mode: 'ping', frontchannel_logout_session_required: true });
  });

  it('prints names from the server without control characters: a registered client cannot drive the terminal', async () => {
    const name = 'Evil\u001b]0;owned\u0007 \u009b31m';
    await t.admin.createClient('shop', { client_id: 'evil', client_name: name, grant_types: ['client_credentials'] });
    const [list, json] = await Promise.all([cli(['client', 'list', 'shop']), cli(['client', 'show', 'shop', 'evil', '--json'])]);
    for (const out of [list.stdout, json.stdout]) expect(out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(tableRows(list.stdout)).toContainEqual(expect.objectContaining({ CLIENT_ID: 'evil', NAME: 'Evil?]0;owned? ?31m' }));
    expect((JSON.parse(json.stdout) as { client_name: string }).client_name).toBe(name); // the same value, escaped
  });

  it('user create reads the password from stdin and takes claims; set-password replaces it; show', async () => {
    const app = await t.admin.createClient('shop', { client_id: 'till', grant_types: ['password'] });
    const signIn = (password: string) =>
      tokenRequest('shop', { grant_type: 'password', username: 'alice', password }, basic('till', app.client_secret!));

    const created = await cli(['user', 'create', 'shop', 'alice', 'name=Alice Liddell', 'email_verified=true', '--password-stdin'], {
      input: 'correct horse battery\n',
    });
    const user = fieldLines(created.stdout);
    expect(user.username).toBe('alice');
    expect(JSON.parse(user.claims!)).toEqual({ name: 'Alice Liddell', email_verified: true });
    expect((await signIn('correct horse battery')).statusCode).toBe(200);

    const changed = await cli(['user', 'set-password', 'shop', 'alice', '--password', 'another long password']);
    expect(changed.stdout).toMatch(/password of alice in shop is changed/);
    expect((await signIn('correct horse battery')).statusCode).toBe(400);
    expect((await signIn('another long password')).statusCode).toBe(200);

    const shown = await cli(['user', 'show', 'shop', 'alice', '--json']);
    expect(JSON.parse(shown.stdout)).toEqual(await adminGet('/realms/shop/users/alice'));
  });

  it('user enrol-totp shows the secret and the otpauth URI once, --qr draws it, --json gives the answer', async () => {
    await t.admin.request('POST', '/realms/shop/users', { username: 'bob', password: 'correct horse battery' });
    const [human, qr] = await Promise.all([cli(['user', 'enrol-totp', 'shop', 'bob']), cli(['user', 'enrol-totp', 'shop', 'bob', '--qr', '--json'])]);
    const shown = fieldLines(human.stdout);
    expect(shown.secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = new URL(shown.otpauth_uri!);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.searchParams.get('secret')).toBe(shown.secret);
    expect(human.stderr).toMatch(/Shown this once/);
    // --json is the answer alone, whatever else was asked.
    expect(Object.keys(JSON.parse(qr.stdout) as object).sort()).toEqual(['otpauth_uri', 'secret']);

    const drawn = await cli(['user', 'enrol-totp', 'shop', 'bob', '--qr']);
    const lines = drawn.stdout.split('\n').filter((line) => /^[█▀▄ ]+$/.test(line) && line.length > 20);
    expect(lines.length).toBeGreaterThan(10);
    expect(fieldLines(drawn.stdout).secret).not.toBe(shown.secret); // each enrolment replaces the one before
  });

  it('keys rotate: new current keys, listed by keys list beside the retired ones, and published', async () => {
    const jwks = async () => ((await t.app.inject(`${realmPath('shop')}/connect/jwk_uri`)).json() as { keys: { kid: string }[] }).keys.map((k) => k.kid);
    const before = await jwks();
    const rotated = tableRows((await cli(['keys', 'rotate', 'shop'])).stdout);
    expect(rotated.map((row) => row.ALG).sort()).toEqual(['ES256', 'RS256']);
    for (const row of rotated) expect(before).not.toContain(row.KID);
    expect(await jwks()).toEqual(expect.arrayContaining([...before, ...rotated.map((row) => row.KID)]));

    const listed = JSON.parse((await cli(['keys', 'list', 'shop', '--json'])).stdout) as { keys: { kid: string; current: boolean }[] };
    expect(listed.keys.filter((k) => k.current).map((k) => k.kid).sort()).toEqual(rotated.map((row) => row.KID!).sort());
    expect(listed.keys.filter((k) => !k.current).map((k) => k.kid).sort()).toEqual([...before].sort());
  });

  it("token introspect: the realm's introspection as a client, the token as an argument or on stdin", async () => {
    const service = await t.admin.serviceClient('shop', 'orders:read', { client_id: 'reporting', token_endpoint_auth_method: 'client_secret_post' });
    const token = (
      (await postForm(t.app, `${realmPath('shop')}/access_token`, { grant_type: 'client_credentials', client_id: service.clientId, client_secret: service.secret })).json() as {
        access_token: string;
      }
    ).access_token;
    const rootClient = await t.admin.serviceClient('root');
    const rootToken = (
      (await tokenRequest('root', { grant_type: 'client_credentials' }, basic(rootClient.clientId, rootClient.secret))).json() as { access_token: string }
    ).access_token;
    const credentials = { REALMGATE_CLIENT_ID: service.clientId, REALMGATE_CLIENT_SECRET: service.secret };

    const [human, fromStdin, inactive, root] = await Promise.all([
      // After `--`: one opaque token in 64 starts with "-", which would otherwise read as an option.
      cli(['token', 'introspect', 'shop', '--client-id', service.clientId, '--client-secret', service.secret, '--client-auth', 'post', '--', token]),
      cli(['token', 'introspect', 'shop', '--client-auth', 'post', '--json'], { input: `${token}\n`, env: credentials }),
      cli(['token', 'introspect', 'shop', '--client-auth', 'post', '--', '-not-a-token'], { env: credentials }),
      cli(['token', 'introspect', 'root', '-', '--client-id', rootClient.clientId, '--client-secret', rootClient.secret, '--json'], { input: rootToken }),
    ]);
    const fields = fieldLines(human.stdout);
    expect(fields).toMatchObject({ active: 'true', client_id: 'reporting', scope: 'orders:read', token_type: 'Bearer', realm: 'shop' });
    expect(fields.exp).toMatch(/^\d+ \(\d{4}-\d\d-\d\dT[\d:.]+Z\)$/);
    expect(JSON.parse(fromStdin.stdout)).toMatchObject({ active: true, client_id: 'reporting', iss: `${t.baseUrl}/oauth2/shop` });
    expect(inactive.stdout.trim()).toMatch(/^active\s+false$/);
    expect(JSON.parse(root.stdout)).toMatchObject({ active: true, client_id: rootClient.clientId, iss: `${t.baseUrl}/oauth2` });

    const refused = await runCli(['token', 'introspect', 'shop', '--client-auth', 'post', '--', token], { env: { ...env, ...credentials, REALMGATE_CLIENT_SECRET: 'wrong' } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/client was refused.*invalid_client/);
  });
});
