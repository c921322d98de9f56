import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { type TestMailServer, startMailServer } from '../support/mail.js';
import { expectAdminError } from './helpers.js';

const MAIL_FEATURES = ['self_registration', 'email_verification', 'password_reset'] as const;

describe('admin API: the settings of people managing themselves (CONTRACT.md §9)', () => {
  describe('without SMTP_URL', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp();
    });
    afterAll(() => t.close());

    it.each(MAIL_FEATURES)('refuses to create a realm with %s on, naming SMTP_URL; nothing is created', async (feature) => {
      const response = await t.admin.request('POST', '/realms', { name: 'mailless', settings: { [feature]: true } });
      expectAdminError(response, 400, 'invalid_request');
      expect(response.json().error_description).toBe(`settings.${feature}: needs outgoing mail: set SMTP_URL`);
      expectAdminError(await t.admin.request('GET', '/realms/mailless'), 404, 'not_found');
    });

    it('refuses to turn them on in a realm, naming each, and changes nothing of the request', async () => {
      await t.admin.createRealm('quiet');
      const response = await t.admin.request('PATCH', '/realms/quiet', {
        settings: { email_verification: true, password_reset: true, ticket_lifetime: 60 },
      });
      expectAdminError(response, 400, 'invalid_request');
      expect(response.json().error_description).toBe('settings.email_verification, settings.password_reset: needs outgoing mail: set SMTP_URL');
      expect((await t.admin.request('GET', '/realms/quiet')).json().settings).toMatchObject({
        email_verification: false,
        password_reset: false,
        ticket_lifetime: 900,
      });
    });

    it('accepts them off, and the settings that send nothing', async () => {
      const created = await t.admin.request('POST', '/realms', {
        name: 'offline',
        settings: { self_registration: false, email_verification: false, password_reset: false, ticket_lifetime: 300, password_min_length: 12 },
      });
      expect(created.statusCode, created.body).toBe(201);
      expect(created.json().settings).toMatchObject({ self_registration: false, ticket_lifetime: 300, password_min_length: 12 });
    });

    it('refuses a password_min_length that is not a whole number from 1 to 1024', async () => {
      for (const value of [0, -1, 7.5, 1025, '8', null]) {
        expectAdminError(await t.admin.request('PATCH', '/realms/root', { settings: { password_min_length: value } }), 400, 'invalid_request');
      }
      expect((await t.admin.request('GET', '/realms/root')).json().settings.password_min_length).toBe(8);
    });
  });

  describe('with SMTP_URL', () => {
    let mail: TestMailServer;
    let t: TestApp;
    beforeAll(async () => {
      mail = await startMailServer();
      t = await startTestApp({ mail: mail.settings });
    });
    afterAll(async () => {
      await t.close();
      await mail.close();
    });

    it('turns each of them on and off', async () => {
      const created = await t.admin.request('POST', '/realms', { name: 'selfserve', settings: { self_registration: true } });
      expect(created.statusCode, created.body).toBe(201);
      const patched = await t.admin.request('PATCH', '/realms/selfserve', { settings: { email_verification: true, password_reset: true } });
      expect(patched.statusCode, patched.body).toBe(200);
      expect(patched.json().settings).toMatchObject({ self_registration: true, email_verification: true, password_reset: true });
      const off = await t.admin.request('PATCH', '/realms/selfserve', { settings: { self_registration: false } });
      expect(off.json().settings).toMatchObject({ self_registration: false, email_verification: true, password_reset: true });
    });
  });
});
