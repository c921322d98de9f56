import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, NO_RATE_LIMITS, startTestApp } from '../support/app.js';
import { PAYMENT, PAYMENT_TYPES } from '../support/authorization-details.js';
import { basic, postForm, realmPath } from '../support/oauth.js';

type Registered = { client_id: string; client_secret: string; registration_access_token: string } & Record<string, unknown>;

/**
 * RFC 9396 §10, RFC 7591 §3, RFC 7592 §2.2: a self-registered client lists only `authorization_details`
 * types the realm defines and its initial access token allows (or that it already has). A type
 * lets it ask for rights such as payments, with client credentials without anyone's consent:
 * neither open registration nor an update hands one out. A refusal changes nothing.
 */
describe('the authorization_details types of self-registered clients', () => {
  let t: TestApp;
  /** Registration with an initial access token; `rar-open` takes registrations without one, and reads none. */
  const realm = 'rar-tokens';
  const openRealm = 'rar-open';

  beforeAll(async () => {
    t = await startTestApp({ listen: false });
    for (const [name, open] of [[realm, false], [openRealm, true]] as const) {
      await t.admin.createRealm(name, {
        ...NO_RATE_LIMITS,
        open_registration: open,
        rate_limit_registration: null,
        registration_grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
        authorization_details_types: PAYMENT_TYPES,
      });
    }
  });
  afterAll(() => t?.close());

  const registerUrl = `${realmPath(realm)}/connect/register`;

  const post = (body: Record<string, unknown>, token?: string, inRealm = realm) =>
    t.app.inject({
      method: 'POST',
      url: `${realmPath(inRealm)}/connect/register`,
      headers: { 'content-type': 'application/json', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
      payload: JSON.stringify(body),
    });

  const put = (client: Registered, body: Record<string, unknown>) =>
    t.app.inject({
      method: 'PUT',
      url: `${registerUrl}/${client.client_id}`,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${client.registration_access_token}` },
      payload: JSON.stringify({ client_id: client.client_id, ...body }),
    });

  const initialAccessToken = async (allows: Record<string, unknown>) => {
    const response = await t.admin.request('POST', `/realms/${realm}/initial-access-tokens`, allows);
    expect(response.statusCode, response.body).toBe(201);
    return response.json().token as string;
  };

  const expectRefused = (response: LightMyRequestResponse) => {
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toEqual({ error: 'invalid_client_metadata', error_description: expect.stringContaining('authorization_details_types:') });
  };

  const clientCount = async (inRealm = realm) => (await t.store.clients.list(inRealm)).length;
  const storedTypes = async (clientId: string) => (await t.store.clients.get(realm, clientId))?.authorization_details_types;

  const service = (types: string[]) => ({ grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_basic', authorization_details_types: types });

  const paymentToken = (client: Registered) =>
    postForm(
      t.app,
      `${realmPath(realm)}/access_token`,
      { grant_type: 'client_credentials', authorization_details: JSON.stringify([PAYMENT]) },
      { authorization: basic(client.client_id, client.client_secret) },
    );

  it('open registration lists no type, not even one the realm defines, and creates nothing', async () => {
    const before = await clientCount(openRealm);
    expectRefused(await post(service(['payment_initiation']), undefined, openRealm));
    expectRefused(await post(service(['no_such_type']), undefined, openRealm));
    expect(await clientCount(openRealm)).toBe(before);
  });

  it('an initial access token allows the types it names, of this realm only', async () => {
    const token = await initialAccessToken({ authorization_details_types: ['payment_initiation'] });
    const before = await clientCount();
    expectRefused(await post(service(['payment_initiation', 'account_information']), token));
    expectRefused(await post(service(['payment_initiation', 'no_such_type']), token));
    expect(await clientCount()).toBe(before);
    // The refusals did not spend the token.
    const created = await post(service(['payment_initiation']), token);
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().authorization_details_types).toEqual(['payment_initiation']);
    expect((await paymentToken(created.json() as Registered)).statusCode).toBe(200);
  });

  it('an initial access token cannot name a type the realm does not define', async () => {
    const refused = await t.admin.request('POST', `/realms/${realm}/initial-access-tokens`, { authorization_details_types: ['no_such_type'] });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('no_such_type') });
  });

  it('a client without types cannot ask for authorization details, nor give itself a type by an update (RFC 7592)', async () => {
    const created = await post(service([]), await initialAccessToken({ grant_types: ['client_credentials'] }));
    expect(created.statusCode, created.body).toBe(201);
    const client = created.json() as Registered;
    expect(created.json()).not.toHaveProperty('authorization_details_types');
    expect((await paymentToken(client)).json()).toMatchObject({ error: 'invalid_authorization_details' });
    expectRefused(await put(client, service(['payment_initiation'])));
    expect(await storedTypes(client.client_id) ?? []).toEqual([]);
    expect((await paymentToken(client)).json()).toMatchObject({ error: 'invalid_authorization_details' });
  });

  it('an update keeps the types it has (its token\'s and an administrator\'s) and adds none', async () => {
    const token = await initialAccessToken({ authorization_details_types: ['payment_initiation'] });
    const client = (await post(service(['payment_initiation']), token)).json() as Registered;
    expectRefused(await put(client, service(['payment_initiation', 'account_information'])));
    expect(await storedTypes(client.client_id)).toEqual(['payment_initiation']);
    const kept = await put(client, service(['payment_initiation']));
    expect(kept.statusCode, kept.body).toBe(200);
    // An administrator may give it another type, which it then keeps.
    const given = await t.admin.request('PATCH', `/realms/${realm}/clients/${client.client_id}`, { authorization_details_types: ['payment_initiation', 'account_information'] });
    expect(given.statusCode, given.body).toBe(200);
    const both = await put(client, service(['account_information', 'payment_initiation']));
    expect(both.statusCode, both.body).toBe(200);
    // Dropping the administrator's type gives it up; its token's allowance stays with its updates.
    expect((await put(client, service(['payment_initiation']))).statusCode).toBe(200);
    expectRefused(await put(client, service(['account_information', 'payment_initiation'])));
    expect(await storedTypes(client.client_id)).toEqual(['payment_initiation']);
  });
});
