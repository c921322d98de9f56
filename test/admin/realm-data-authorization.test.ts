import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { PAYMENT_TYPES } from '../support/authorization-details.js';

/**
 * CONTRACT.md §10 and §13: a realm's export carries its `authorization_details_types` and its
 * clients' `subject_type`, `sector_identifier_uri`, `authorization_details_types` and
 * `introspection_signed_response_alg`; an import makes them again, and refuses a client with a
 * pattern its schema cannot use.
 */
describe('the fields of what a client may ask for, exported and imported', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ listen: false });
    await t.admin.createRealm('rar-source', { authorization_details_types: PAYMENT_TYPES });
    await t.admin.createClient('rar-source', {
      client_id: 'wallet',
      redirect_uris: ['https://wallet.example/cb'],
      subject_type: 'pairwise',
      authorization_details_types: ['payment_initiation', 'account_information'],
      introspection_signed_response_alg: 'ES256',
    });
  });
  afterAll(() => t?.close());

  it('exports them, and an import into a new realm makes the same', async () => {
    const exported = await t.admin.request('GET', '/realms/rar-source/export');
    expect(exported.statusCode, exported.body).toBe(200);
    const document = exported.json();
    expect(document.settings.authorization_details_types).toEqual(PAYMENT_TYPES);
    const imported = await t.admin.request('PUT', '/realms/rar-copy/import', document);
    expect(imported.statusCode, imported.body).toBe(201);
    expect((await t.admin.request('GET', '/realms/rar-copy')).json().settings.authorization_details_types).toEqual(PAYMENT_TYPES);
    expect((await t.admin.request('GET', '/realms/rar-copy/clients/wallet')).json()).toMatchObject({
      subject_type: 'pairwise',
      authorization_details_types: ['payment_initiation', 'account_information'],
      introspection_signed_response_alg: 'ES256',
    });
  });

  it('refuses a document whose type schema uses a backreference, and makes nothing', async () => {
    const document = (await t.admin.request('GET', '/realms/rar-source/export')).json();
    document.settings.authorization_details_types = { echo: { type: 'object', properties: { value: { type: 'string', pattern: '^(a)\\1$' } } } };
    const refused = await t.admin.request('PUT', '/realms/rar-refused/import', document);
    expect(refused.statusCode, refused.body).toBe(400);
    expect((await t.admin.request('GET', '/realms/rar-refused')).statusCode).toBe(404);
  });
});
