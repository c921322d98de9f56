import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, type TestApp, startTestApp } from '../support/app.js';
import { authorize, codeRequest, freshRealm } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, location } from '../support/flow.js';
import { basic, postForm, realmPath } from '../support/oauth.js';
import { createUser } from '../support/users.js';
import { expectAdminError } from '../admin/helpers.js';

/**
 * A client's name per language (CONTRACT.md §16, OpenID Connect Registration §2.1's
 * `client_name#de` in the shape of `descriptions`): the sign-in and consent pages name the
 * application in the person's language, else by its `client_name`.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const clientLine = (page: LightMyRequestResponse): string | undefined => /<p class="client">.*?<strong>([^<]*)<\/strong>/s.exec(page.body)?.[1];

async function pagesIn(realm: string, clientId: string, language: string, username: string) {
  const browser = new TestBrowser(t.app, BASE_URL);
  browser.headers['accept-language'] = language;
  const url = location(await authorize(browser, realm, codeRequest(clientId)));
  const signIn = await browser.get(url);
  const consent = await browser.get(location(await browser.submit(url, signIn, { username, password: 'a long passphrase of theirs' })));
  return { signIn, consent };
}

describe('client_names', () => {
  it('names the application in the person\u2019s language on the sign-in and consent pages, else by client_name; null clears them', async () => {
    const realm = await freshRealm(t);
    const created = await t.admin.request('POST', `/realms/${realm}/clients`, {
      client_type: 'public', client_name: 'Invoices', client_names: { de: 'Rechnungen', fr: 'Factures' },
      redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code'], scope: 'openid profile',
    });
    expect(created.statusCode, created.body).toBe(201);
    const clientId = created.json().client_id as string;
    expect((await t.admin.request('GET', `/realms/${realm}/clients/${clientId}`)).json().client_names).toEqual({ de: 'Rechnungen', fr: 'Factures' });
    await createUser(t.admin, realm, 'ada', { password: 'a long passphrase of theirs' });

    const german = await pagesIn(realm, clientId, 'de', 'ada');
    expect(clientLine(german.signIn)).toBe('Rechnungen');
    expect(german.consent.statusCode).toBe(200);
    expect(clientLine(german.consent)).toBe('Rechnungen');
    expect(german.consent.body).not.toContain('Invoices');
    expect(clientLine((await pagesIn(realm, clientId, 'fr', 'ada')).signIn)).toBe('Factures');
    expect(clientLine((await pagesIn(realm, clientId, 'en', 'ada')).signIn)).toBe('Invoices');

    const cleared = await t.admin.request('PATCH', `/realms/${realm}/clients/${clientId}`, { client_names: null });
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect(cleared.json()).not.toHaveProperty('client_names');
    expect(clientLine((await pagesIn(realm, clientId, 'de', 'ada')).signIn)).toBe('Invoices');
  });

  it('refuses a language the pages do not speak, an empty name or one with control characters, changing nothing', async () => {
    const realm = await freshRealm(t);
    const { client_id: clientId } = await t.admin.createClient(realm, { client_type: 'public', client_name: 'Invoices', redirect_uris: [REDIRECT_URI] });
    for (const client_names of [{ it: 'Fatture' }, { de: '' }, { de: 'Rech\u0000nungen' }, { de: 'Rech\nnungen' }, ['de']]) {
      const refused = await t.admin.request('PATCH', `/realms/${realm}/clients/${clientId}`, { client_names });
      expectAdminError(refused, 400, 'invalid_request');
      expect(refused.json().error_description).toMatch(/client_names/);
    }
    expect((await t.admin.request('GET', `/realms/${realm}/clients/${clientId}`)).json()).not.toHaveProperty('client_names');
  });

  it('names the application of a CIBA request in the person\u2019s language on the approval page', async () => {
    const realm = await freshRealm(t);
    await createUser(t.admin, realm, 'cal', { password: 'a long passphrase of theirs' });
    const created = await t.admin.createClient(realm, {
      client_name: 'Call centre', client_names: { de: 'Kundendienst' }, grant_types: ['urn:openid:params:grant-type:ciba'], scope: 'openid profile',
    });
    const asked = await postForm(t.app, `${realmPath(realm)}/bc-authorize`, { scope: 'openid profile', login_hint: 'cal' }, {
      authorization: basic(created.client_id, created.client_secret!),
    });
    expect(asked.statusCode, asked.body).toBe(200);

    const approvalIn = async (language: string) => {
      const browser = new TestBrowser(t.app, BASE_URL);
      browser.headers['accept-language'] = language;
      const pageUrl = `${realmPath(realm)}/bc-approve`;
      const loginUrl = location(await browser.get(pageUrl));
      await browser.submit(loginUrl, await browser.get(loginUrl), { username: 'cal', password: 'a long passphrase of theirs' });
      const page = await browser.get(pageUrl);
      expect(page.statusCode, page.body).toBe(200);
      return /<section class="request">\s*<p>[^<]*<strong>([^<]*)<\/strong>/.exec(page.body)?.[1];
    };
    expect(await approvalIn('de')).toBe('Kundendienst');
    expect(await approvalIn('fr')).toBe('Call centre');
  });
});
