import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatalogueError, loadCatalogues, unloadCatalogues } from '../../src/pages/i18n/json-catalogues.js';
import { BASE_URL, type TestApp, startTestApp } from '../support/app.js';
import { authorize, codeRequest } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, location } from '../support/flow.js';
import { type TestMailServer, startMailServer } from '../support/mail.js';
import { realmPath } from '../support/oauth.js';
import { createUser } from '../support/users.js';
import { expectAdminError } from '../admin/helpers.js';

/**
 * A fourth language needs no code (CONTRACT.md §16): `LOCALES_DIR` holds `<locale>.json`
 * catalogues, read at start and checked against the English keys; what a file leaves out is
 * English. A realm offers the language by its `locales`, and its pages and mails speak it.
 */
const ITALIAN = {
  signIn: { titles: { password: 'Accedi' }, username: 'Nome utente' },
  'signIn.password': 'Parola d\u2019ordine',
  'mail.passwordReset.subject': 'Reimposta la password di {0}',
  'mail.passwordReset.action': 'Scegli una nuova password',
  reset: { 'checkMail#one': 'Il link vale {0} minuto.', 'checkMail#other': 'Il link vale {0} minuti.' },
  'mail.expiry': 'Il link vale una volta, per {0}.',
};

const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;
const langOf = (page: LightMyRequestResponse): string | undefined => /<html lang="([^"]*)">/.exec(page.body)?.[1];
const titleOf = (page: LightMyRequestResponse): string | undefined => /<title>([^<]*)<\/title>/.exec(page.body)?.[1];

let t: TestApp;
let mail: TestMailServer;
let dir: string;

async function catalogueDir(files: Record<string, unknown>): Promise<string> {
  const made = await mkdtemp(join(dir, 'catalogues-'));
  for (const [name, content] of Object.entries(files)) await writeFile(join(made, name), typeof content === 'string' ? content : JSON.stringify(content));
  return made;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'realmgate-locales-'));
  expect(loadCatalogues(await catalogueDir({ 'it.json': ITALIAN, 'notes.txt': 'not a catalogue' }))).toEqual(['it']);
  mail = await startMailServer();
  t = await startTestApp({ mail: mail.settings });
});
afterAll(async () => {
  // The test files of a worker share the modules: the next one speaks the shipped languages alone.
  unloadCatalogues(['it']);
  await t?.close();
  await mail?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a language read from LOCALES_DIR', () => {
  it('is offered by a realm that lists it: its pages speak it, English where the file is silent, and the picker names it', async () => {
    const realm = unique('lingue');
    await t.admin.createRealm(realm, { locales: ['it', 'en'] });
    const { client_id: clientId } = await t.admin.createClient(realm, {
      client_type: 'public', redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code'], scope: 'openid profile',
    });
    const browser = new TestBrowser(t.app, BASE_URL);
    browser.headers['accept-language'] = 'it-IT, en;q=0.5';
    const page = await browser.get(location(await authorize(browser, realm, codeRequest(clientId))));
    expect(langOf(page)).toBe('it');
    expect(titleOf(page)).toBe(`Accedi · ${realm}`);
    expect(page.body).toContain('Nome utente');
    expect(page.body).toContain('Parola d\u2019ordine');
    expect(page.body).toContain('<nav class="languages" aria-label="Language">');
    expect(page.body).toMatch(/hreflang="it" lang="it" aria-current="true">Italiano</);

    const english = new TestBrowser(t.app, BASE_URL);
    english.headers['accept-language'] = 'en';
    expect(langOf(await english.get(location(await authorize(english, realm, codeRequest(clientId)))))).toBe('en');
  });

  it('words the mails and takes the realm\u2019s own texts like a shipped one', async () => {
    const realm = unique('lingue');
    await t.admin.createRealm(realm, { locales: ['en', 'it'], password_reset: true });
    const own = await t.admin.request('PUT', `/realms/${realm}/texts/it`, { 'mail.passwordReset.action': 'Nuova password' });
    expect(own.statusCode, own.body).toBe(200);
    const username = unique('bea');
    await createUser(t.admin, realm, username, { claims: { email: `${username}@example.com`, email_verified: true } });
    const browser = new TestBrowser(t.app, BASE_URL);
    const reset = `${realmPath(realm)}/reset?ui_locales=it`;
    const asked = await browser.submit(reset, await browser.get(reset), { username });
    // A count by the language's plural category, a length of time in its words (the realm's links work 15 minutes).
    expect(asked.body).toContain('Il link vale 15 minuti.');
    const received = await mail.nextMail(`${username}@example.com`);
    expect(received.subject).toBe(`Reimposta la password di ${realm}`);
    expect(received.text).toContain('Il link vale una volta, per 15 minuti.');
    expect(received.text).toContain('Nuova password:');
    expect(new URL(/(https?:\/\/\S+\/reset\?\S+)/.exec(received.text)![1]!).searchParams.get('ui_locales')).toBe('it');
  });

  it('is not a realm\u2019s language unless the realm lists it, and a language without a catalogue is refused', async () => {
    const realm = unique('lingue');
    await t.admin.createRealm(realm);
    expect((await t.admin.request('GET', `/realms/${realm}`)).json().settings.locales).toEqual(['en', 'de', 'fr']);
    const refused = await t.admin.request('PATCH', `/realms/${realm}`, { settings: { locales: ['en', 'pt'] } });
    expectAdminError(refused, 400, 'invalid_request');
    expect(refused.json().error_description).toContain('must be one of en, de, fr, it');
  });
});

describe('a catalogue that does not fit', () => {
  it.each([
    ['a key the English catalogue does not have', { 'signIn.nope': 'x' }, 'pt.json: signIn.nope: is not a text of the pages or mails'],
    ['a text that drops a placeholder', { mail: { passwordReset: { subject: 'Senha' } } }, 'pt.json: mail.passwordReset.subject: must keep the placeholders of the original: {0}'],
    ['an empty text', { 'signIn.username': '' }, 'pt.json: signIn.username: must not be empty'],
    ['a plural category the language does not have', { 'reset.checkMail#two': '{0} minutos' }, 'pt.json: reset.checkMail#two: two is not a plural category of pt, which has one, many, other'],
    ['a list', ['signIn.username'], 'pt.json: must be an object of texts by key'],
    ['JSON that is not', '{"signIn.username": ', 'pt.json: is not JSON'],
  ])('stops the start: %s', async (_, content, message) => {
    const made = await catalogueDir({ 'pt.json': content });
    expect(() => loadCatalogues(made)).toThrow(CatalogueError);
    expect(() => loadCatalogues(made)).toThrow(message);
    // Nothing of it was taken.
    const realm = unique('lingue');
    await t.admin.createRealm(realm);
    expectAdminError(await t.admin.request('PATCH', `/realms/${realm}`, { settings: { locales: ['pt'] } }), 400, 'invalid_request');
  });

  it('names a directory that cannot be read', () => {
    expect(() => loadCatalogues(join(dir, 'no-such-dir'))).toThrow(/cannot read .*no-such-dir \(ENOENT\)/);
  });
});

describe('unloading', () => {
  it('takes a language back, and gives a shipped one its shipped words again', async () => {
    loadCatalogues(await catalogueDir({ 'eo.json': { 'signIn.username': 'Uzantnomo' }, 'de.json': { 'signIn.username': 'Kundennummer' } }));
    const { SUPPORTED_LOCALES, messagesIn } = await import('../../src/pages/i18n/index.js');
    expect(SUPPORTED_LOCALES).toContain('eo');
    expect(messagesIn('de').signIn.username).toBe('Kundennummer');
    unloadCatalogues(['eo', 'de']);
    expect(SUPPORTED_LOCALES).not.toContain('eo');
    expect(SUPPORTED_LOCALES).toContain('de');
    expect(messagesIn('de').signIn.username).toBe('Benutzername');
  });
});
