import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { authorize, codeRequest } from '../support/flow-helpers.js';
import { TestBrowser, location } from '../support/flow.js';
import { realmPath } from '../support/oauth.js';

/**
 * `client_name#de` (OpenID Connect Registration §2.1) at dynamic registration (RFC 7591) and its
 * updates (RFC 7592 §2.2): a name in a language the server speaks is kept as the client's
 * `client_names` (the admin API's field, CONTRACT.md §16) and answered as `client_name#de`, one in
 * another language is left out; a hostile one is refused with invalid_client_metadata and changes nothing.
 */
const REDIRECT = 'https://app.example/callback';
const REALM = 'named-registration';

type Registered = { client_id: string; registration_access_token: string } & Record<string, unknown>;

describe('client_name#<language> at dynamic registration', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm(REALM, { open_registration: true, rate_limit_registration: null });
  });
  afterAll(() => t?.close());

  const registerUrl = `${realmPath(REALM)}/connect/register`;
  const base = { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', scope: 'openid', client_name: 'Invoices' };

  const post = (body: unknown): Promise<LightMyRequestResponse> =>
    t.app.inject({ method: 'POST', url: registerUrl, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });

  async function registered(body: Record<string, unknown>): Promise<Registered> {
    const response = await post(body);
    expect(response.statusCode, response.body).toBe(201);
    return response.json() as Registered;
  }

  const put = (client: Registered, body: Record<string, unknown>): Promise<LightMyRequestResponse> =>
    t.app.inject({
      method: 'PUT',
      url: `${registerUrl}/${client.client_id}`,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${client.registration_access_token}` },
      payload: JSON.stringify({ client_id: client.client_id, ...body }),
    });

  const adminNames = async (clientId: string): Promise<unknown> => (await t.admin.request('GET', `/realms/${REALM}/clients/${clientId}`)).json().client_names;
  const clientCount = async (): Promise<number> => ((await t.admin.request('GET', `/realms/${REALM}/clients`)).json() as unknown[]).length;

  function expectRefused(response: LightMyRequestResponse, words: RegExp): void {
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toEqual({ error: 'invalid_client_metadata', error_description: expect.stringMatching(words) });
  }

  it('keeps the names as client_names, answers them as client_name#de, and the pages show them', async () => {
    const client = await registered({ ...base, 'client_name#de': 'Rechnungen', 'client_name#FR': 'Factures' });
    expect(client).toMatchObject({ client_name: 'Invoices', 'client_name#de': 'Rechnungen', 'client_name#fr': 'Factures' });
    expect(await adminNames(client.client_id)).toEqual({ de: 'Rechnungen', fr: 'Factures' });

    const read = await t.app.inject({ method: 'GET', url: `${registerUrl}/${client.client_id}`, headers: { authorization: `Bearer ${client.registration_access_token}` } });
    expect(read.json()).toMatchObject({ 'client_name#de': 'Rechnungen', 'client_name#fr': 'Factures' });

    const browser = new TestBrowser(t.app, t.baseUrl);
    browser.headers['accept-language'] = 'de';
    const started = await authorize(browser, REALM, codeRequest(client.client_id, { redirect_uri: REDIRECT, scope: 'openid' }));
    expect(started.statusCode, started.body).toBe(303);
    const signIn = await browser.get(location(started));
    expect(signIn.body).toContain('Rechnungen');
  });

  it('an update replaces the names it gives, and keeps them when it gives none (admin-set ones too)', async () => {
    const client = await registered({ ...base, 'client_name#de': 'Rechnungen' });
    const replaced = await put(client, { ...base, 'client_name#fr': 'Factures' });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect(replaced.json()['client_name#de']).toBeUndefined();
    expect(replaced.json()['client_name#fr']).toBe('Factures');
    expect(await adminNames(client.client_id)).toEqual({ fr: 'Factures' });

    expect((await t.admin.request('PATCH', `/realms/${REALM}/clients/${client.client_id}`, { client_names: { de: 'Belege' } })).statusCode).toBe(200);
    const kept = await put(client, base);
    expect(kept.statusCode, kept.body).toBe(200);
    expect(kept.json()).toMatchObject({ 'client_name#de': 'Belege' });
    expect(await adminNames(client.client_id)).toEqual({ de: 'Belege' });
  });

  it('leaves out names in languages the server does not speak, and registers the client', async () => {
    const client = await registered({
      ...base,
      'client_name#de': 'Rechnungen',
      'client_name#ja-Jpan-JP': '請求書',
      'client_name#de-CH': 'Rechnigen',
      'client_name#': 'Name',
      'client_name#__proto__': 'Name',
    });
    expect(Object.keys(client).filter((field) => field.startsWith('client_name#'))).toEqual(['client_name#de']);
    expect(await adminNames(client.client_id)).toEqual({ de: 'Rechnungen' });
  });

  const HOSTILE: Array<[string, Record<string, unknown>, RegExp]> = [
    ['a name too long', { 'client_name#de': 'R'.repeat(201) }, /^"client_name#de": .*200/],
    ['a control character', { 'client_name#de': 'Rech\u0007nungen' }, /^"client_name#de": must hold no control characters/],
    ['a line break', { 'client_name#fr': 'Fac\ntures' }, /^"client_name#fr": must hold no control characters/],
    ['a control character in a language the server does not speak', { 'client_name#ja': 'Na\u0007me' }, /^"client_name#ja": must hold no control characters/],
    ['an empty name', { 'client_name#de': '' }, /^"client_name#de": /],
    ['a name that is not text', { 'client_name#de': { de: 'x' } }, /^"client_name#de": /],
    ['a language named twice', { 'client_name#de': 'Rechnungen', 'client_name#DE': 'Belege' }, /"client_name#DE": the language is named twice/],
    ['too many names', Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`client_name#x${i}`, 'n'])), /at most 20 languages/],
  ];

  it.each(HOSTILE)('refuses %s at registration, and registers nothing', async (_, names, words) => {
    const before = await clientCount();
    expectRefused(await post({ ...base, ...names }), words);
    expect(await clientCount()).toBe(before);
  });

  it('refuses a hostile name at an update, and changes nothing', async () => {
    const client = await registered({ ...base, 'client_name#de': 'Rechnungen' });
    for (const [, names, words] of HOSTILE) expectRefused(await put(client, { ...base, ...names }), words);
    expect(await adminNames(client.client_id)).toEqual({ de: 'Rechnungen' });
  });
});
