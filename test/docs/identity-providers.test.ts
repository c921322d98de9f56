import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { buildOnce } from '../support/process.js';
import { readDoc, runWithCli, shellBlocks } from './support.js';

/**
 * docs/identity-providers.md's examples hold: each JSON body is one the admin API creates in
 * the realm `acme`, with the redirect URI the page says; its shell blocks, run in order by bash
 * with `realmgate` the built CLI, create, change and delete what they say.
 */
const DOC = 'docs/identity-providers.md';
const jsonBlocks = (markdown: string): Array<Record<string, unknown>> =>
  [...markdown.matchAll(/```json\n([\s\S]*?)```/g)].map((block) => JSON.parse(block[1]!) as Record<string, unknown>);

/** The placeholders of the shell blocks, as a reader would have set them. */
const READER_ENV = {
  CLIENT_SECRET: 'corp-secret',
  GOOGLE_CLIENT_ID: '1234567890-abc.apps.googleusercontent.com',
  GOOGLE_CLIENT_SECRET: 'google-secret',
  ENTRA_TENANT_ID: '3f1e5c2a-7b8d-4e6f-9a0b-1c2d3e4f5a6b',
  ENTRA_CLIENT_ID: '0b1c2d3e-4f50-4617-8283-94a5b6c7d8e9',
  ENTRA_CLIENT_SECRET: 'entra-secret',
  OKTA_DOMAIN: 'example.okta.com',
  OKTA_CLIENT_ID: '0oa1b2c3d4e5f6g7h8i9',
  OKTA_CLIENT_SECRET: 'okta-secret',
  KEYCLOAK_CLIENT_SECRET: 'keycloak-secret',
  NEW_SECRET: 'google-secret-2',
};

describe(`the examples of ${DOC}`, () => {
  let t: TestApp;
  let documented: TestApp;
  const doc = readDoc(DOC);

  beforeAll(async () => {
    [t, documented] = await Promise.all([startTestApp({ listen: true }), startTestApp({ baseUrl: 'https://auth.example.com' }), buildOnce()]);
    await Promise.all([t.admin.createRealm('acme'), documented.admin.createRealm('acme')]);
  });

  afterAll(async () => {
    await t?.close();
    await documented?.close();
  });

  it('has a JSON body for each provider it names, each created as it says, with the redirect URI it says', async () => {
    const bodies = jsonBlocks(doc);
    expect(bodies.map((body) => body.alias)).toEqual(['google', 'entra', 'okta', 'keycloak']);
    for (const body of bodies) {
      const response = await documented.admin.request('POST', '/realms/acme/identity-providers', body);
      expect(response.statusCode, response.body).toBe(201);
      const answer = response.json() as Record<string, unknown>;
      expect(answer.redirect_uri).toBe(`https://auth.example.com/oauth2/acme/broker/${body.alias}/callback`);
      expect(answer).not.toHaveProperty('client_secret');
    }
    expect(doc).toContain('`https://auth.example.com/oauth2/acme/broker/google/callback`');
  });

  it('runs its shell blocks in order: the providers made, changed and the last one deleted', async () => {
    const blocks = shellBlocks(doc);
    expect(blocks.length).toBeGreaterThanOrEqual(6);
    const run = await runWithCli(blocks, t.baseUrl, READER_ENV);
    expect(run.code, run.output).toBe(0);
    for (const secret of ['corp-secret', 'google-secret', 'entra-secret', 'okta-secret', 'keycloak-secret']) expect(run.output).not.toContain(secret);

    const providers = (await t.admin.request('GET', '/realms/acme/identity-providers')).json() as Array<Record<string, unknown>>;
    expect(Object.fromEntries(providers.map((provider) => [provider.alias, provider]))).toEqual({
      corp: expect.objectContaining({ issuer: 'https://login.corp.example', client_id: 'realmgate', display_name: 'Corp account', link_by_verified_email: false }),
      entra: expect.objectContaining({ issuer: `https://login.microsoftonline.com/${READER_ENV.ENTRA_TENANT_ID}/v2.0`, client_id: READER_ENV.ENTRA_CLIENT_ID }),
      okta: expect.objectContaining({ issuer: 'https://example.okta.com/oauth2/default', client_id: READER_ENV.OKTA_CLIENT_ID }),
      keycloak: expect.objectContaining({ issuer: 'https://sso.example.com/realms/staff', display_name: 'Staff SSO', link_by_verified_email: true }),
    });
    // The Google example was made, changed as the last block says (its output shows it), then deleted.
    expect(run.output).toMatch(/^display_name\s+Google account$/m);
    expect(run.output).toMatch(/^username_claim\s+email$/m);
    expect(run.output).toContain('Identity provider google of acme deleted.');
  });
});
