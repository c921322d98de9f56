import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYMENT_TYPES } from '../support/authorization-details.js';
import { type TestApp, startTestApp } from '../support/app.js';
import { freshRealm } from '../support/flow-helpers.js';
import { realmPath } from '../support/oauth.js';

/** The realm setting `authorization_details_types` and the client field of RFC 9396 (CONTRACT.md §13): validated when set, listed in discovery. */
describe('authorization_details types', () => {
  let t: TestApp;
  let realm: string;

  beforeAll(async () => {
    t = await startTestApp({ listen: false });
    realm = await freshRealm(t, { authorization_details_types: PAYMENT_TYPES });
  });
  afterAll(() => t.close());

  it('is listed in discovery', async () => {
    const discovery = await t.app.inject({ method: 'GET', url: `${realmPath(realm)}/.well-known/openid-configuration` });
    expect(discovery.json().authorization_details_types_supported).toEqual(['payment_initiation', 'account_information']);
    const other = await freshRealm(t);
    const none = await t.app.inject({ method: 'GET', url: `${realmPath(other)}/.well-known/openid-configuration` });
    expect(none.json().authorization_details_types_supported).toEqual([]);
  });

  it.each([
    ['a schema that does not compile', { broken: { type: 'no-such-json-type' } }],
    ['an unknown keyword (strict schema)', { typo: { type: 'object', propertees: {} } }],
    ['a schema that is not an object', { odd: 'string' }],
    ['a type name with a space', { 'two words': { type: 'object' } }],
  ])('refuses %s and changes nothing', async (_, types) => {
    const refused = await t.admin.request('PATCH', `/realms/${realm}`, { settings: { authorization_details_types: types } });
    expect(refused.statusCode, refused.body).toBe(400);
    const read = await t.admin.request('GET', `/realms/${realm}`);
    expect(read.json().settings.authorization_details_types).toEqual(PAYMENT_TYPES);
  });

  it("refuses a client's type list that is malformed", async () => {
    const refused = await t.admin.request('POST', `/realms/${realm}/clients`, { grant_types: ['client_credentials'], authorization_details_types: ['a b'] });
    expect(refused.statusCode).toBe(400);
  });
});
