import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestApp, startTestApp } from '../support/app.js';
import { PAYMENT_TYPES } from '../support/authorization-details.js';
import { realmPath } from '../support/oauth.js';
import { buildOnce } from '../support/process.js';
import { cliOk, fieldLines } from './support.js';

/**
 * The fields of CONTRACT.md §13 through the CLI: a realm's `authorization_details_types`, a
 * client's `subject_type`, `sector_identifier_uri`, `authorization_details_types` and
 * `introspection_signed_response_alg`, and an initial access token that allows a realm's types.
 */
describe('realmgate and what a client may ask for about the person', () => {
  let t: TestApp;
  let env: Record<string, string>;
  const cli = (args: string[]) => cliOk(args, { env });
  const adminGet = async (path: string) => (await t.admin.request('GET', path)).json() as Record<string, unknown>;

  beforeAll(async () => {
    [t] = await Promise.all([startTestApp({ listen: true }), buildOnce()]);
    env = { REALMGATE_URL: t.baseUrl, REALMGATE_ADMIN_TOKEN: ADMIN_TOKEN };
  });
  afterAll(() => t?.close());

  it("sets a realm's authorization_details_types, and a client's subject type, types and introspection signing", async () => {
    await cli(['realm', 'create', 'payments', `authorization_details_types=${JSON.stringify(PAYMENT_TYPES)}`]);
    expect(((await adminGet('/realms/payments')).settings as Record<string, unknown>).authorization_details_types).toEqual(PAYMENT_TYPES);

    const created = await cli([
      'client', 'create', 'payments', '--client-id', 'wallet', '--redirect-uri', 'https://wallet.example/cb',
      '--subject-type', 'pairwise', '--authorization-details-type', 'payment_initiation', '--introspection-signed-response-alg', 'ES256',
    ]);
    expect(fieldLines(created.stdout)).toMatchObject({ client_id: 'wallet', subject_type: 'pairwise', introspection_signed_response_alg: 'ES256' });
    expect(await adminGet('/realms/payments/clients/wallet')).toMatchObject({
      subject_type: 'pairwise',
      authorization_details_types: ['payment_initiation'],
      introspection_signed_response_alg: 'ES256',
    });

    await cli(['client', 'update', 'payments', 'wallet', '--authorization-details-type', 'account_information', '--introspection-signed-response-alg', 'RS256', '--subject-type', 'public']);
    expect(await adminGet('/realms/payments/clients/wallet')).toMatchObject({
      subject_type: 'public',
      authorization_details_types: ['account_information'],
      introspection_signed_response_alg: 'RS256',
    });
  });

  it('an initial access token allows a realm type to the one client it registers', async () => {
    const issued = await cli(['initial-access-token', 'create', 'payments', '--grant-type', 'client_credentials', '--authorization-details-type', 'payment_initiation']);
    const { token } = fieldLines(issued.stdout);
    const registered = await fetch(`${t.baseUrl}${realmPath('payments')}/connect/register`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ grant_types: ['client_credentials'], authorization_details_types: ['payment_initiation'] }),
    });
    expect(registered.status).toBe(201);
    expect(((await registered.json()) as Record<string, unknown>).authorization_details_types).toEqual(['payment_initiation']);
  });
});
