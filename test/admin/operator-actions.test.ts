import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, NO_RATE_LIMITS, type TestApp, startTestApp } from '../support/app.js';
import { lastEvent } from '../audit/support.js';
import { type TestMailServer, startMailServer } from '../support/mail.js';
import { type ServiceClient, clientCredentials, introspect } from '../support/oauth.js';
import { createUser, passwordTokens } from '../support/users.js';
import { expectAdminError } from './helpers.js';

/**
 * What an operator does for a person (CONTRACT.md §16): reset and verification mails sent
 * through a real SMTP server, TOTP and passkeys removed, consents listed and withdrawn with
 * the client's tokens, each audited with the operator as actor; a viewer may do none of it.
 */

const users = (realm: string, username: string) => `/realms/${realm}/users/${username}`;

/** A `root` admin token of a client holding `roles`. */
async function roleToken(t: TestApp, roles: readonly string[]): Promise<{ token: string; clientId: string }> {
  const client = await t.admin.createClient('root', { grant_types: ['client_credentials'], roles });
  const response = await clientCredentials(t.app, 'root', { clientId: client.client_id, secret: client.client_secret as string }, { resource: `${BASE_URL}/admin` });
  expect(response.statusCode, response.body).toBe(200);
  return { token: (response.json() as { access_token: string }).access_token, clientId: client.client_id };
}

const asToken = (t: TestApp, token: string, method: 'GET' | 'POST' | 'DELETE', url: string) =>
  t.app.inject({ method, url: `/admin${url}`, headers: { authorization: `Bearer ${token}` } });

describe('operator actions on a person', () => {
  let mail: TestMailServer;
  let t: TestApp;
  let realm: string;

  beforeAll(async () => {
    mail = await startMailServer();
    t = await startTestApp({ mail: mail.settings });
    realm = `ops-${randomBytes(4).toString('hex')}`;
    await t.admin.createRealm(realm, { ...NO_RATE_LIMITS, password_reset: true });
  }, 180_000);
  afterAll(async () => {
    await t.close();
    await mail.close();
  });

  describe('send-reset and send-verification', () => {
    it('mails a reset link that opens the reset form, 202, audited with the operator as actor', async () => {
      const user = await createUser(t.admin, realm, 'rita', { claims: { email: 'rita@example.com', email_verified: true } });
      const response = await t.admin.request('POST', `${users(realm, 'rita')}/send-reset`);
      expect(response.statusCode, response.body).toBe(202);
      expect(response.body).toBe('');
      const received = await mail.nextMail('rita@example.com');
      const link = /https:\/\/auth\.test\/oauth2\/[a-z0-9-]+\/reset\?ticket=[A-Za-z0-9_%-]+/.exec(received.text)?.[0];
      expect(link, received.text).toBeDefined();
      const page = await t.app.inject({ method: 'GET', url: link!.slice(BASE_URL.length) });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('name="password"');
      const event = await lastEvent(t.admin, realm, 'user.password_reset_sent');
      expect(event.user_id).toBe(user.sub);
      expect(event.actor).toEqual({ admin_token: true });
      expect(JSON.stringify(event)).not.toContain('ticket');
    });

    it('mails a verification link in the person\'s language that confirms the address', async () => {
      await createUser(t.admin, realm, 'vera', { claims: { email: 'vera@example.com', locale: 'de' } });
      const response = await t.admin.request('POST', `${users(realm, 'vera')}/send-verification`, {});
      expect(response.statusCode, response.body).toBe(202);
      const received = await mail.nextMail('vera@example.com');
      const english = await (async () => {
        await createUser(t.admin, realm, 'vince', { claims: { email: 'vince@example.com' } });
        await t.admin.request('POST', `${users(realm, 'vince')}/send-verification`);
        return mail.nextMail('vince@example.com');
      })();
      expect(received.subject).not.toBe(english.subject);
      const link = /https:\/\/auth\.test\/oauth2\/[a-z0-9-]+\/verify\?ticket=[A-Za-z0-9_%-]+/.exec(received.text)?.[0];
      expect(link, received.text).toBeDefined();
      await t.app.inject({ method: 'GET', url: link!.slice(BASE_URL.length) });
      expect((await t.admin.request('GET', users(realm, 'vera'))).json().claims.email_verified).toBe(true);
      expect((await lastEvent(t.admin, realm, 'user.verification_sent')).details.username).toBe('vince');
    });

    it('refuses with the reason, sending nothing: no email, disabled, reset off, unknown person, a body', async () => {
      await createUser(t.admin, realm, 'noemail');
      await createUser(t.admin, realm, 'gone', { claims: { email: 'gone@example.com' } });
      await t.admin.request('PATCH', users(realm, 'gone'), { enabled: false });
      const before = mail.received.length;
      const noEmail = await t.admin.request('POST', `${users(realm, 'noemail')}/send-reset`);
      expectAdminError(noEmail, 409, 'conflict');
      expect(noEmail.json().error_description).toBe('the person has no email address');
      const disabled = await t.admin.request('POST', `${users(realm, 'gone')}/send-verification`);
      expectAdminError(disabled, 409, 'conflict');
      expect(disabled.json().error_description).toBe('the person is disabled');
      expectAdminError(await t.admin.request('POST', `${users(realm, 'nobody')}/send-reset`), 404, 'not_found');
      expectAdminError(await t.admin.request('POST', `${users(realm, 'noemail')}/send-reset`, { to: 'attacker@example.com' }), 400, 'invalid_request');

      const quiet = `quiet-${randomBytes(4).toString('hex')}`;
      await t.admin.createRealm(quiet);
      await createUser(t.admin, quiet, 'rita', { claims: { email: 'rita2@example.com' } });
      const off = await t.admin.request('POST', `${users(quiet, 'rita')}/send-reset`);
      expectAdminError(off, 409, 'conflict');
      expect(off.json().error_description).toContain('settings.password_reset');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(mail.received.length).toBe(before);
    });

    it('applies the self-service limits: the sixth link to one person in the window is refused', async () => {
      await createUser(t.admin, realm, 'lim', { claims: { email: 'lim@example.com' } });
      for (let i = 0; i < 5; i++) {
        expect((await t.admin.request('POST', `${users(realm, 'lim')}/send-verification`)).statusCode).toBe(202);
        await mail.nextMail('lim@example.com');
      }
      const refused = await t.admin.request('POST', `${users(realm, 'lim')}/send-verification`);
      expectAdminError(refused, 409, 'conflict');
      expect(refused.json().error_description).toContain('limit');
    });
  });

  it('refuses both mails with the reason when mail is not configured', async () => {
    const bare = await startTestApp();
    try {
      await bare.admin.createRealm('plain');
      await createUser(bare.admin, 'plain', 'rita', { claims: { email: 'rita@example.com' } });
      for (const action of ['send-reset', 'send-verification']) {
        const response = await bare.admin.request('POST', `${users('plain', 'rita')}/${action}`);
        expectAdminError(response, 409, 'conflict');
        expect(response.json().error_description).toBe('mail is not configured on this server: set SMTP_URL');
      }
    } finally {
      await bare.close();
    }
  }, 180_000);

  it('removes a person\'s TOTP authenticator, then answers 404', async () => {
    const user = await createUser(t.admin, realm, 'otto');
    expect((await t.admin.request('POST', `${users(realm, 'otto')}/totp`)).statusCode).toBe(201);
    const removed = await t.admin.request('DELETE', `${users(realm, 'otto')}/totp`);
    expect(removed.statusCode, removed.body).toBe(204);
    const row = await t.store.oneTimeCodes.removeTotp(realm, user.sub);
    expect(row, 'nothing was left to remove').toBe(false);
    expectAdminError(await t.admin.request('DELETE', `${users(realm, 'otto')}/totp`), 404, 'not_found');
    const event = await lastEvent(t.admin, realm, 'user.totp_removed');
    expect(event.user_id).toBe(user.sub);
    expect(event.actor).toEqual({ admin_token: true });
  });

  it('lists and deletes a person\'s passkeys, keeping the only way to sign in', async () => {
    const user = await createUser(t.admin, realm, 'pia');
    const credential = (name: string) => ({
      credentialId: randomBytes(16), realm, userId: user.sub, publicKey: randomBytes(77), counter: 0, transports: ['internal'], backedUp: true, name,
    });
    const [laptop, phone] = [credential('Laptop'), credential('Phone')];
    expect(await t.store.passkeys.create(laptop, 10)).toBe(true);
    expect(await t.store.passkeys.create(phone, 10)).toBe(true);
    const listed = await t.admin.request('GET', `${users(realm, 'pia')}/passkeys`);
    expect(listed.statusCode).toBe(200);
    const passkeys = listed.json().passkeys as Array<Record<string, unknown>>;
    expect(passkeys.map((passkey) => passkey.name).sort()).toEqual(['Laptop', 'Phone']);
    expect(passkeys.find((passkey) => passkey.name === 'Laptop')).toMatchObject({ id: laptop.credentialId.toString('base64url'), backed_up: true, last_used_at: null });
    expect(listed.body).not.toContain(laptop.publicKey.toString('base64url'));

    const id = laptop.credentialId.toString('base64url');
    expect((await t.admin.request('DELETE', `${users(realm, 'pia')}/passkeys/${id}`)).statusCode).toBe(204);
    expectAdminError(await t.admin.request('DELETE', `${users(realm, 'pia')}/passkeys/${id}`), 404, 'not_found');
    expectAdminError(await t.admin.request('DELETE', `${users(realm, 'pia')}/passkeys/not*base64`), 404, 'not_found');
    // Another person's passkey is not found through this one.
    await createUser(t.admin, realm, 'other');
    expectAdminError(await t.admin.request('DELETE', `${users(realm, 'other')}/passkeys/${phone.credentialId.toString('base64url')}`), 404, 'not_found');
    const deleted = await lastEvent(t.admin, realm, 'user.passkey_deleted');
    expect(deleted).toMatchObject({ user_id: user.sub, details: { passkey: id }, actor: { admin_token: true } });

    // Without a password, the last passkey is the only way in: kept.
    const bare = (await t.store.users.create(realm, 'nopass', undefined, {}))!;
    const only = { ...credential('Only'), userId: bare.id };
    await t.store.passkeys.create(only, 10);
    const kept = await t.admin.request('DELETE', `${users(realm, 'nopass')}/passkeys/${only.credentialId.toString('base64url')}`);
    expectAdminError(kept, 409, 'conflict');
    expect((await t.admin.request('GET', `${users(realm, 'nopass')}/passkeys`)).json().passkeys).toHaveLength(1);
  });

  it('lists a person\'s consents and withdraws one: the client\'s tokens for them are revoked, the others\' stay', async () => {
    const user = await createUser(t.admin, realm, 'cora');
    const clientOf = async (name: string): Promise<ServiceClient> => {
      const created = await t.admin.createClient(realm, { client_id: name, client_name: `The ${name}`, grant_types: ['password', 'refresh_token'], scope: 'openid profile' });
      return { clientId: created.client_id, secret: created.client_secret as string };
    };
    const [shop, mailer] = [await clientOf(`shop-${randomBytes(3).toString('hex')}`), await clientOf(`mail-${randomBytes(3).toString('hex')}`)];
    const auditor = await t.admin.serviceClient(realm, '', { introspect_any_token: true });
    const shopTokens = await passwordTokens(t.app, realm, shop, user, 'openid profile');
    const mailTokens = await passwordTokens(t.app, realm, mailer, user, 'openid');
    await t.store.consents.grant(realm, user.sub, shop.clientId, ['openid', 'profile']);
    await t.store.consents.grant(realm, user.sub, mailer.clientId, ['openid']);

    const listed = await t.admin.request('GET', `${users(realm, 'cora')}/consents`);
    expect(listed.statusCode).toBe(200);
    expect(listed.json().consents).toEqual(expect.arrayContaining([
      { client_id: shop.clientId, client_name: `The ${shop.clientId}`, scope: 'openid profile', granted_at: expect.any(String) },
      expect.objectContaining({ client_id: mailer.clientId, scope: 'openid' }),
    ]));

    const revoked = await t.admin.request('DELETE', `${users(realm, 'cora')}/consents/${shop.clientId}`);
    expect(revoked.statusCode, revoked.body).toBe(204);
    const active = async (token: string) => (await introspect(t.app, realm, auditor, token)).json().active as boolean;
    expect(await active(shopTokens.refresh_token!)).toBe(false);
    expect(await active(shopTokens.access_token)).toBe(false);
    expect(await active(mailTokens.refresh_token!)).toBe(true);
    expect((await t.admin.request('GET', `${users(realm, 'cora')}/consents`)).json().consents.map((c: { client_id: string }) => c.client_id)).toEqual([mailer.clientId]);
    expectAdminError(await t.admin.request('DELETE', `${users(realm, 'cora')}/consents/${shop.clientId}`), 404, 'not_found');
    const event = await lastEvent(t.admin, realm, 'consent.revoked');
    expect(event).toMatchObject({ client_id: shop.clientId, user_id: user.sub });
    expect(event.actor).toEqual({ admin_token: true });
  });

  it('lets a viewer read but not act, and names an admin token\'s subject as actor', async () => {
    await createUser(t.admin, realm, 'vic', { claims: { email: 'vic@example.com' } });
    const viewer = await roleToken(t, [`realmgate-viewer:${realm}`]);
    for (const [method, path] of [
      ['POST', 'send-reset'], ['POST', 'send-verification'], ['DELETE', 'totp'], ['DELETE', 'passkeys/AAAA'], ['DELETE', 'consents/shop'],
    ] as const) {
      const response = await asToken(t, viewer.token, method, `${users(realm, 'vic')}/${path}`);
      expect(response.statusCode, `${method} ${path}: ${response.body}`).toBe(403);
      expect(response.json().error).toBe('forbidden');
    }
    expect((await asToken(t, viewer.token, 'GET', `${users(realm, 'vic')}/passkeys`)).statusCode).toBe(200);
    expect((await asToken(t, viewer.token, 'GET', `${users(realm, 'vic')}/consents`)).statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(mail.received.some((received) => received.to.includes('vic@example.com'))).toBe(false);

    const admin = await roleToken(t, [`realmgate-admin:${realm}`]);
    expect((await asToken(t, admin.token, 'POST', `${users(realm, 'vic')}/send-verification`)).statusCode).toBe(202);
    await mail.nextMail('vic@example.com');
    const event = await lastEvent(t.admin, realm, 'user.verification_sent');
    expect(event.actor).toMatchObject({ client_id: admin.clientId });
  });
});
