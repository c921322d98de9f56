import { randomBytes } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, BASE_URL, type TestApp, startTestApp, startTwoInstances } from '../support/app.js';
import { authorize, codeRequest } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, location } from '../support/flow.js';
import { type TestMailServer, startMailServer } from '../support/mail.js';
import { clientCredentials, realmPath } from '../support/oauth.js';
import { createUser } from '../support/users.js';
import { SafeHtml } from '../../src/pages/html.js';
import { en } from '../../src/pages/i18n/en.js';
import { TEXT_KEYS } from '../../src/pages/i18n/text-keys.js';
import { expectAdminError } from './helpers.js';

/**
 * A realm's own words for its pages and mails (CONTRACT.md §16, `…/texts/{locale}`): stored per
 * language, checked against the catalogue (known keys, the original's placeholders kept),
 * escaped on the pages, used by the mails, and seen by every instance.
 */
const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;
const titleOf = (page: LightMyRequestResponse): string | undefined => /<title>([^<]*)<\/title>/.exec(page.body)?.[1];

let t: TestApp;
let mail: TestMailServer;

beforeAll(async () => {
  mail = await startMailServer();
  t = await startTestApp({ mail: mail.settings });
});
afterAll(async () => {
  await t?.close();
  await mail?.close();
});

async function signInPage(app: FastifyInstance, realm: string, clientId: string, language: string): Promise<LightMyRequestResponse> {
  const browser = new TestBrowser(app, BASE_URL);
  browser.headers['accept-language'] = language;
  return browser.get(location(await authorize(browser, realm, codeRequest(clientId))));
}

async function realmWithClient(app: TestApp['admin'] = t.admin) {
  const realm = unique('texts');
  await app.createRealm(realm, { password_reset: true });
  const { client_id: clientId } = await app.createClient(realm, {
    client_type: 'public', client_name: 'Billing & Co', redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code'], scope: 'openid profile',
  });
  return { realm, clientId };
}

describe('PUT, GET and DELETE …/texts/{locale}', () => {
  it('stores the realm\u2019s words in one language, which its pages then show, escaped, and DELETE returns to the shipped ones', async () => {
    const { realm, clientId } = await realmWithClient();
    expect((await t.admin.request('GET', `/realms/${realm}/texts/de`)).json()).toEqual({});

    const texts = { 'signIn.titles.password': 'Willkommen <b>zurück</b>', 'page.forClient': 'weiter zu {0} & mehr' };
    const put = await t.admin.request('PUT', `/realms/${realm}/texts/de`, texts);
    expect(put.statusCode).toBe(200);
    expect(put.json()).toEqual(texts);
    expect((await t.admin.request('GET', `/realms/${realm}/texts/de`)).json()).toEqual(texts);

    const german = await signInPage(t.app, realm, clientId, 'de');
    expect(titleOf(german)).toBe(`Willkommen &lt;b&gt;zurück&lt;/b&gt; · ${realm}`);
    expect(german.body).not.toContain('<b>zurück');
    // The template's words are escaped; the client's name, markup the page made, stays as the page made it.
    expect(german.body).toContain('weiter zu <strong>Billing &amp; Co</strong> &amp; mehr');
    // Other languages keep the shipped words.
    const english = await signInPage(t.app, realm, clientId, 'en');
    expect(titleOf(english)).toBe(`Sign in · ${realm}`);
    expect(english.body).toContain('to continue to <strong>Billing &amp; Co</strong>');

    expect((await t.admin.request('DELETE', `/realms/${realm}/texts/de`)).statusCode).toBe(204);
    expect((await t.admin.request('GET', `/realms/${realm}/texts/de`)).json()).toEqual({});
    expect(titleOf(await signInPage(t.app, realm, clientId, 'de'))).toBe(`Anmelden · ${realm}`);
    expectAdminError(await t.admin.request('DELETE', `/realms/${realm}/texts/de`), 404, 'not_found');
  });

  it('replaces what the language had: a text left out of the PUT is the shipped one again', async () => {
    const { realm, clientId } = await realmWithClient();
    await t.admin.request('PUT', `/realms/${realm}/texts/fr`, { 'signIn.titles.password': 'Bienvenue', 'signIn.username': 'Identifiant' });
    const put = await t.admin.request('PUT', `/realms/${realm}/texts/fr`, { 'signIn.username': 'Pseudo' });
    expect(put.json()).toEqual({ 'signIn.username': 'Pseudo' });
    const page = await signInPage(t.app, realm, clientId, 'fr');
    expect(titleOf(page)).toBe(`Connexion · ${realm}`);
    expect(page.body).toContain('Pseudo');
  });

  it('words the mails too: a reset mail in German with the realm\u2019s subject', async () => {
    const { realm } = await realmWithClient();
    await t.admin.request('PUT', `/realms/${realm}/texts/de`, {
      'mail.passwordReset.subject': 'Neues Passwort für {0}',
      'mail.passwordReset.action': 'Passwort <neu> wählen',
    });
    const username = unique('bea');
    await createUser(t.admin, realm, username, { claims: { email: `${username}@example.com`, email_verified: true } });
    const browser = new TestBrowser(t.app, BASE_URL);
    const reset = `${realmPath(realm)}/reset?ui_locales=de`;
    await browser.submit(reset, await browser.get(reset), { username });
    const received = await mail.nextMail(`${username}@example.com`);
    expect(received.subject).toBe(`Neues Passwort für ${realm}`);
    expect(received.text).toContain('Passwort <neu> wählen:');
    expect(received.html).toContain('Passwort &lt;neu&gt; wählen</a>');
  });

  it.each([
    ['an unknown key', { 'signIn.noSuchText': 'x' }, /signIn\.noSuchText: is not a text of the pages or mails/],
    ['a group of texts rather than a text', { signIn: 'x' }, /signIn: is not a text/],
    ['a lost placeholder', { 'mail.passwordReset.subject': 'Neues Passwort' }, /must keep the placeholders of the original: \{0\}/],
    ['an added placeholder', { 'signIn.username': 'Name {0}' }, /placeholders the original does not have: \{0\}/],
    ['an empty text', { 'signIn.username': '' }, /must not be empty/],
    ['a text too long', { 'signIn.username': 'x'.repeat(2001) }, /at most 2000 characters/],
    ['a control character', { 'signIn.username': 'Name\u0007' }, /control characters/],
    ['a text that is not a string', { 'signIn.username': 42 }, /signIn\.username/],
    ['a body that is not an object', ['signIn.username'], /./],
  ])('refuses %s with a 400 that changes nothing', async (_, body, description) => {
    const { realm } = await realmWithClient();
    const kept = { 'signIn.password': 'Kennwort' };
    await t.admin.request('PUT', `/realms/${realm}/texts/de`, kept);
    const refused = await t.admin.request('PUT', `/realms/${realm}/texts/de`, body);
    expectAdminError(refused, 400, 'invalid_request');
    expect(refused.json().error_description).toMatch(description);
    expect((await t.admin.request('GET', `/realms/${realm}/texts/de`)).json()).toEqual(kept);
  });

  it('refuses a language the pages do not ship in, for every method', async () => {
    const { realm } = await realmWithClient();
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const refused = await t.admin.request(method, `/realms/${realm}/texts/it`, method === 'PUT' ? { 'signIn.username': 'Utente' } : undefined);
      expectAdminError(refused, 400, 'invalid_request');
      expect(refused.json().error_description).toMatch(/locale: must be one of en, de, fr/);
    }
  });

  it('answers 404 for a realm that does not exist', async () => {
    expectAdminError(await t.admin.request('PUT', '/realms/no-such-realm/texts/de', { 'signIn.username': 'Name' }), 404, 'not_found');
  });
});

describe('texts with a number', () => {
  /** The page that answers a reset request, and the mail it sends, in `language`, for a realm whose links work `minutes` minutes. */
  async function resetAsked(realm: string, language: string, minutes: number) {
    expect((await t.admin.request('PATCH', `/realms/${realm}`, { settings: { ticket_lifetime: minutes * 60 } })).statusCode).toBe(200);
    const username = unique('cleo');
    await createUser(t.admin, realm, username, { claims: { email: `${username}@example.com`, email_verified: true } });
    const browser = new TestBrowser(t.app, BASE_URL);
    const reset = `${realmPath(realm)}/reset?ui_locales=${language}`;
    const page = await browser.submit(reset, await browser.get(reset), { username });
    expect(page.statusCode, page.body.slice(0, 300)).toBe(200);
    return { page: page.body, mail: await mail.nextMail(`${username}@example.com`) };
  }

  it('words a count per plural category of the language, and a length of time once, on the page and in the mail, in German and French', async () => {
    const { realm } = await realmWithClient();
    const german = {
      'reset.checkMail#one': 'Der Link gilt eine einzige Minute ({0}).',
      'reset.checkMail#other': 'Der Link gilt {0} Minuten lang.',
      'mail.expiry': 'Gültig: {0}.',
    };
    const french = { 'reset.checkMail#one': 'Lien valable {0} minute.', 'reset.checkMail#many': 'Lien valable {0} de minutes.', 'reset.checkMail#other': 'Lien valable {0} minutes.' };
    expect((await t.admin.request('PUT', `/realms/${realm}/texts/de`, german)).json()).toEqual(german);
    expect((await t.admin.request('PUT', `/realms/${realm}/texts/fr`, french)).json()).toEqual(french);

    const one = await resetAsked(realm, 'de', 1);
    expect(one.page).toContain('Der Link gilt eine einzige Minute (1).');
    expect(one.mail.text).toContain('Gültig: 60 Sekunden.');
    const five = await resetAsked(realm, 'de', 5);
    expect(five.page).toContain('Der Link gilt 5 Minuten lang.');
    expect(five.mail.text).toContain('Gültig: 5 Minuten.');

    expect((await resetAsked(realm, 'fr', 1)).page).toContain('Lien valable 1 minute.');
    const fiveInFrench = await resetAsked(realm, 'fr', 5);
    expect(fiveInFrench.page).toContain('Lien valable 5 minutes.');
    // French words no length of time of its own: the shipped one stands.
    expect(fiveInFrench.mail.text).toContain('Le lien fonctionne une seule fois, pendant 5 minutes.');
    // English has none of these texts: the shipped ones.
    expect((await resetAsked(realm, 'en', 5)).page).toContain('The link works once, within 5 minutes.');
  });

  it('takes a count\u2019s plain key for every count, its categories first, and the shipped text for a category worded by neither', async () => {
    const { realm } = await realmWithClient();
    await t.admin.request('PUT', `/realms/${realm}/texts/de`, { 'reset.checkMail#one': 'Genau {0} Minute.' });
    expect((await resetAsked(realm, 'de', 1)).page).toContain('Genau 1 Minute.');
    expect((await resetAsked(realm, 'de', 5)).page).toContain('Der Link funktioniert einmal innerhalb von 5 Minuten.');
    await t.admin.request('PUT', `/realms/${realm}/texts/de`, { 'reset.checkMail': 'Minuten: {0}.', 'reset.checkMail#one': 'Genau {0} Minute.' });
    expect((await resetAsked(realm, 'de', 1)).page).toContain('Genau 1 Minute.');
    expect((await resetAsked(realm, 'de', 5)).page).toContain('Minuten: 5.');
  });

  it.each([
    ['a plural category on a text without a count', 'de', { 'signIn.username#one': 'Name' }, /signIn\.username#one: is not a text with a count/],
    ['a plural category on a length of time', 'de', { 'mail.expiry#other': 'Gültig: {0}' }, /mail\.expiry#other: is not a text with a count/],
    ['a category the language does not have', 'de', { 'reset.checkMail#many': '{0} Minuten' }, /reset\.checkMail#many: many is not a plural category of de, which has one, other/],
    ['a category no language has', 'fr', { 'reset.checkMail#several': '{0} minutes' }, /several is not a plural category of fr, which has one, many, other/],
    ['a count without its number', 'de', { 'reset.checkMail#other': 'Ein paar Minuten' }, /reset\.checkMail#other: must keep the placeholders of the original: \{0\}/],
    ['a count with a second placeholder', 'fr', { 'reset.checkMail#one': '{0} minute {1}' }, /placeholders the original does not have: \{1\}/],
    ['a length of time without its words', 'de', { 'mail.expiry': 'Gilt kurz.' }, /mail\.expiry: must keep the placeholders of the original: \{0\}/],
  ])('refuses %s with a 400 that changes nothing', async (_, language, body, description) => {
    const { realm } = await realmWithClient();
    const kept = { 'reset.checkMail#one': '{0} Minute' };
    await t.admin.request('PUT', `/realms/${realm}/texts/${language}`, kept);
    const refused = await t.admin.request('PUT', `/realms/${realm}/texts/${language}`, body);
    expectAdminError(refused, 400, 'invalid_request');
    expect(refused.json().error_description).toMatch(description);
    expect((await t.admin.request('GET', `/realms/${realm}/texts/${language}`)).json()).toEqual(kept);
  });
});

describe('GET …/texts/{locale}/catalogue', () => {
  it('lists every text a realm may word in the language, with the shipped words as an override writes them', async () => {
    const { realm } = await realmWithClient();
    // The realm's own words are not the catalogue's.
    await t.admin.request('PUT', `/realms/${realm}/texts/de`, { 'signIn.username': 'Kundennummer' });
    const answer = await t.admin.request('GET', `/realms/${realm}/texts/de/catalogue`);
    expect(answer.statusCode).toBe(200);
    const catalogue = answer.json() as { locale: string; plural_categories: string[]; texts: { key: string; text: string; placeholders: number; number?: string }[] };
    expect(catalogue.locale).toBe('de');
    expect(catalogue.plural_categories).toEqual(['one', 'other']);
    const byKey = new Map(catalogue.texts.map((entry) => [entry.key, entry]));
    expect(byKey.get('signIn.username')).toEqual({ key: 'signIn.username', text: 'Benutzername', placeholders: 0 });
    expect(byKey.get('mail.passwordReset.subject')).toEqual({ key: 'mail.passwordReset.subject', text: 'Setzen Sie Ihr Passwort für {0} zurück', placeholders: 1 });
    expect(byKey.get('account.recoveryCodes.left#one')).toMatchObject({ placeholders: 1, number: 'count', text: expect.stringContaining('{0} unbenutzten Wiederherstellungscode.') });
    expect(byKey.get('mail.expiry')).toEqual({ key: 'mail.expiry', text: 'Der Link funktioniert einmal innerhalb von {0}.', placeholders: 1, number: 'duration' });
    expect(byKey.has('account.recoveryCodes.left')).toBe(false);
    expect(catalogue.texts.length).toBeGreaterThan(300);
    // Every key listed is one a PUT takes, with the listed words.
    const all = Object.fromEntries(catalogue.texts.map((entry) => [entry.key, entry.text]));
    expect((await t.admin.request('PUT', `/realms/${realm}/texts/de`, all)).statusCode).toBe(200);

    const french = (await t.admin.request('GET', `/realms/${realm}/texts/fr/catalogue`)).json();
    expect(french.plural_categories).toEqual(['one', 'many', 'other']);
    expectAdminError(await t.admin.request('GET', `/realms/${realm}/texts/it/catalogue`), 400, 'invalid_request');
    expectAdminError(await t.admin.request('GET', '/realms/no-such-realm/texts/de/catalogue'), 404, 'not_found');
  });

  it('leaves no text of the pages and mails out: those with a number and those that show none of their parameters too', () => {
    const leaves = (node: object, prefix = ''): string[] =>
      Object.entries(node).flatMap(([name, value]) => {
        const key = prefix === '' ? name : `${prefix}.${name}`;
        if (key === 'lang') return [];
        return typeof value === 'object' && !(value instanceof SafeHtml) ? leaves(value as object, key) : [key];
      });
    expect(leaves(en).filter((key) => !TEXT_KEYS.has(key))).toEqual([]);
    expect(TEXT_KEYS.get('upstream.unknown_state')).toMatchObject({ placeholders: 0 });
  });
});

describe('who may word a realm\u2019s texts', () => {
  async function roleToken(roles: readonly string[]): Promise<string> {
    const client = await t.admin.createClient('root', { grant_types: ['client_credentials'], roles });
    const response = await clientCredentials(t.app, 'root', { clientId: client.client_id, secret: client.client_secret as string }, { resource: `${BASE_URL}/admin` });
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { access_token: string }).access_token;
  }
  const asToken = (token: string, method: 'GET' | 'PUT' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({ method, url: `/admin${url}`, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });

  it('a viewer of the realm reads them and changes nothing; an admin of the realm changes them; an admin of another realm does neither', async () => {
    const { realm } = await realmWithClient();
    const kept = { 'signIn.username': 'Kundennummer' };
    await t.admin.request('PUT', `/realms/${realm}/texts/de`, kept);
    const viewer = await roleToken([`realmgate-viewer:${realm}`]);
    expect((await asToken(viewer, 'GET', `/realms/${realm}/texts/de`)).json()).toEqual(kept);
    expect((await asToken(viewer, 'GET', `/realms/${realm}/texts/de/catalogue`)).statusCode).toBe(200);
    for (const [method, payload] of [['PUT', { 'signIn.username': 'Name' }], ['DELETE', undefined]] as const) {
      const refused = await asToken(viewer, method, `/realms/${realm}/texts/de`, payload);
      expect(refused.statusCode, refused.body).toBe(403);
      expect(refused.json().error).toBe('forbidden');
    }
    const stranger = await roleToken([`realmgate-admin:${unique('other')}`]);
    expect((await asToken(stranger, 'GET', `/realms/${realm}/texts/de`)).statusCode).toBe(403);
    expect((await asToken(stranger, 'GET', `/realms/${realm}/texts/de/catalogue`)).statusCode).toBe(403);
    expect((await t.admin.request('GET', `/realms/${realm}/texts/de`)).json()).toEqual(kept);

    const admin = await roleToken([`realmgate-admin:${realm}`]);
    expect((await asToken(admin, 'PUT', `/realms/${realm}/texts/de`, { 'signIn.username': 'Name' })).statusCode).toBe(200);
    expect((await asToken(admin, 'DELETE', `/realms/${realm}/texts/de`)).statusCode).toBe(204);
  });
});

describe('texts in a realm\u2019s document', () => {
  it('are exported by language, imported into another realm, again unchanged, refused when unknown, and pruned', async () => {
    const { realm } = await realmWithClient();
    const words = { 'signIn.username': 'Kundennummer', 'mail.passwordReset.subject': 'Neues Passwort für {0}' };
    await t.admin.request('PUT', `/realms/${realm}/texts/de`, words);
    const document = (await t.admin.request('GET', `/realms/${realm}/export`)).json();
    expect(document.texts).toEqual({ de: words });

    const copy = unique('copy');
    const imported = await t.admin.request('PUT', `/realms/${copy}/import`, { texts: document.texts });
    expect(imported.statusCode, imported.body).toBe(201);
    expect(imported.json().sections.texts).toEqual({ created: ['de'], changed: [], deleted: [], unchanged: 0 });
    expect((await t.admin.request('GET', `/realms/${copy}/texts/de`)).json()).toEqual(words);
    expect((await t.admin.request('PUT', `/realms/${copy}/import`, { texts: document.texts })).json().sections.texts).toEqual({ created: [], changed: [], deleted: [], unchanged: 1 });

    const refused = await t.admin.request('PUT', `/realms/${copy}/import`, { texts: { fr: { 'signIn.nope': 'x' }, de: { 'signIn.username': 'Nummer' } } });
    expectAdminError(refused, 400, 'invalid_request');
    expect(refused.json().error_description).toContain('texts.fr.signIn.nope: is not a text of the pages or mails');
    expect((await t.admin.request('GET', `/realms/${copy}/texts/de`)).json()).toEqual(words);

    const pruned = await t.admin.request('PUT', `/realms/${copy}/import?prune=true`, { texts: {} });
    expect(pruned.json().sections.texts).toEqual({ created: [], changed: [], deleted: ['de'], unchanged: 0 });
    expect((await t.admin.request('GET', `/realms/${copy}/texts/de`)).json()).toEqual({});
  });
});

describe('texts on two instances', () => {
  it('an override made on one instance is shown by the other, which had the realm cached, and so is its removal', async () => {
    const { a, b, close } = await startTwoInstances();
    try {
      const admin = (app: FastifyInstance, method: 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
        app.inject({ method, url: `/admin${url}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, ...(payload ? { payload } : {}) });
      expect((await admin(a, 'POST', '/realms', { name: 'pair' })).statusCode).toBe(201);
      const created = await admin(a, 'POST', '/realms/pair/clients', { client_type: 'public', redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code'], scope: 'openid profile' });
      const clientId = created.json().client_id as string;
      expect(titleOf(await signInPage(b, 'pair', clientId, 'de'))).toBe('Anmelden · pair');

      expect((await admin(a, 'PUT', '/realms/pair/texts/de', { 'signIn.titles.password': 'Willkommen' })).statusCode).toBe(200);
      await expect.poll(async () => titleOf(await signInPage(b, 'pair', clientId, 'de')), { timeout: 10_000 }).toBe('Willkommen · pair');

      expect((await admin(a, 'DELETE', '/realms/pair/texts/de')).statusCode).toBe(204);
      await expect.poll(async () => titleOf(await signInPage(b, 'pair', clientId, 'de')), { timeout: 10_000 }).toBe('Anmelden · pair');
    } finally {
      await close();
    }
  }, 120_000);
});
