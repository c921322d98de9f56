import type { LightMyRequestResponse } from 'fastify';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { authorize, codeRequest, consentFrom, signInFrom } from '../support/flow-helpers.js';
import { REDIRECT_URI, TestBrowser, location, obtainCode, pkce } from '../support/flow.js';
import { basic, postForm, realmPath } from '../support/oauth.js';
import { type TestUser } from '../support/users.js';
import { personIn, securityRealm } from './support.js';

/** Every parameter of the redirect back to the client. */
function answerOf(response: LightMyRequestResponse): URLSearchParams {
  expect(response.statusCode, response.body.slice(0, 300)).toBe(303);
  const target = new URL(location(response));
  expect(`${target.origin}${target.pathname}`).toBe(REDIRECT_URI);
  return target.searchParams;
}

/**
 * Mix-up attacks (RFC 9700 §4.4): a client that talks to several authorization servers
 * tells which one answered by the `iss` of the authorization response (RFC 9207), which the
 * server puts on every response, codes and errors alike, and announces in its metadata.
 * Realms are distinct issuers on one host: each answers with its own.
 */
describe('mix-up defence: iss on every authorization response (RFC 9207)', () => {
  let t: TestApp;
  const realms: Record<'root' | 'sub', { name: string; issuer: string; clientId: string; confidential: { id: string; secret: string }; user: TestUser }> = {} as never;

  beforeAll(async () => {
    t = await startTestApp();
    for (const [key, name] of [['root', 'root'], ['sub', await securityRealm(t)]] as const) {
      const user = await personIn(t, name);
      const record = { redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code'], scope: 'openid profile' };
      // The same client_id in both realms: only iss tells the answers apart.
      const client = await t.admin.createClient(name, { ...record, client_id: 'mixed-up-app', client_type: 'public' });
      const confidential = await t.admin.createClient(name, record);
      realms[key] = {
        name,
        issuer: `${t.baseUrl}${realmPath(name)}`,
        clientId: client.client_id,
        confidential: { id: confidential.client_id, secret: confidential.client_secret! },
        user,
      };
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  for (const key of ['root', 'sub'] as const) {
    describe(`the ${key} realm`, () => {
      it('announces authorization_response_iss_parameter_supported, with its issuer, at both discovery paths', async () => {
        const { name, issuer } = realms[key];
        const wellKnown = name === 'root' ? '/.well-known/oauth-authorization-server/oauth2' : `/.well-known/oauth-authorization-server/oauth2/${name}`;
        for (const path of [`${realmPath(name)}/.well-known/openid-configuration`, wellKnown]) {
          const response = await t.app.inject({ method: 'GET', url: path });
          expect(response.statusCode, path).toBe(200);
          const metadata = response.json() as Record<string, unknown>;
          expect(metadata.issuer, path).toBe(issuer);
          expect(metadata.authorization_response_iss_parameter_supported, path).toBe(true);
        }
      });

      it('puts its issuer on a code, and the ID token the code buys names the same issuer', async () => {
        const { name, issuer, clientId, user } = realms[key];
        const flow = await obtainCode(new TestBrowser(t.app, t.baseUrl), name, { clientId, username: user.username, password: user.password });
        expect(flow.iss).toBe(issuer);
        const exchanged = await postForm(t.app, `${realmPath(name)}/access_token`, {
          grant_type: 'authorization_code',
          code: flow.code,
          redirect_uri: REDIRECT_URI,
          client_id: clientId,
          code_verifier: flow.verifier,
        });
        expect(exchanged.statusCode, exchanged.body).toBe(200);
        expect(decodeJwt((exchanged.json() as { id_token: string }).id_token).iss).toBe(issuer);
      });

      it('puts its issuer on every error redirect, with state', async () => {
        const { name, issuer, clientId, confidential } = realms[key];
        const user = await personIn(t, name);
        const b = () => new TestBrowser(t.app, t.baseUrl);
        const errors: Array<[string, Promise<LightMyRequestResponse>]> = [
          ['invalid_request', authorize(b(), name, codeRequest(clientId, { response_type: undefined }))],
          ['unsupported_response_type', authorize(b(), name, codeRequest(clientId, { response_type: 'code id_token' }))],
          ['invalid_scope', authorize(b(), name, codeRequest(clientId, { scope: 'openid nothing-of-this-realm' }))],
          ['invalid_request_object', authorize(b(), name, codeRequest(clientId, { request: 'e30.e30.' }))],
          ['login_required', authorize(b(), name, codeRequest(clientId, { prompt: 'none' }))],
          ['unauthorized_client', (async () => {
            const device = await t.admin.createClient(name, { client_type: 'public', redirect_uris: [REDIRECT_URI], grant_types: ['refresh_token'], scope: 'openid' });
            return authorize(b(), name, codeRequest(device.client_id));
          })()],
        ];
        for (const [error, pending] of errors) {
          const params = answerOf(await pending);
          expect(params.get('error'), error).toBe(error);
          expect(params.get('iss'), error).toBe(issuer);
          expect(params.get('state'), error).toBe('state-123');
          expect(params.get('code'), error).toBeNull();
        }

        // After sign-in: consent_required for a silent request, access_denied for a denial.
        const signedIn = b();
        const first = await authorize(signedIn, name, codeRequest(clientId));
        const toConsent = await signInFrom(signedIn, first, user);
        const denied = answerOf(await consentFrom(signedIn, toConsent, 'deny'));
        expect([denied.get('error'), denied.get('iss')]).toEqual(['access_denied', issuer]);
        const silent = answerOf(await authorize(signedIn, name, codeRequest(clientId, { prompt: 'none' })));
        expect([silent.get('error'), silent.get('iss')]).toEqual(['consent_required', issuer]);

        // A confidential client's pushed request (RFC 9126) is answered the same way.
        const pushed = await postForm(t.app, `${realmPath(name)}/par`, { response_type: 'code', redirect_uri: REDIRECT_URI, scope: 'openid', state: 'pushed', prompt: 'none' }, {
          authorization: basic(confidential.id, confidential.secret),
        });
        expect(pushed.statusCode, pushed.body).toBe(201);
        const { request_uri: requestUri } = pushed.json() as { request_uri: string };
        const viaPar = answerOf(await authorize(signedIn, name, { client_id: confidential.id, request_uri: requestUri }));
        expect([viaPar.get('error'), viaPar.get('iss'), viaPar.get('state')]).toEqual(['consent_required', issuer, 'pushed']);
      });

      it('puts its issuer on the code of a silent request (prompt=none with a session and consent)', async () => {
        const { name, issuer, clientId, user } = realms[key];
        const b = new TestBrowser(t.app, t.baseUrl);
        await obtainCode(b, name, { clientId, username: user.username, password: user.password });
        const silent = answerOf(await authorize(b, name, codeRequest(clientId, { prompt: 'none', code_challenge: pkce().challenge })));
        expect(silent.get('code')).toBeTruthy();
        expect(silent.get('iss')).toBe(issuer);
      });
    });
  }

  it('gives each realm its own issuer, so that a client of two realms can tell their answers apart', () => {
    expect(realms.root.issuer).toBe(`${t.baseUrl}/oauth2`);
    expect(realms.sub.issuer).toBe(`${t.baseUrl}/oauth2/${realms.sub.name}`);
    expect(realms.root.clientId).toBe(realms.sub.clientId);
  });
});
