import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { TestBrowser, location, obtainCode } from '../support/flow.js';
import { introspect } from '../support/oauth.js';

/**
 * A certified client library (oauth4webapi) registers itself over a real listening server
 * (RFC 7591), uses its credentials for two grants, then reads, replaces and deletes its
 * registration (RFC 7592); after the deletion neither the client nor its tokens work.
 */

const REALM = 'alpha';
const FIRST_REDIRECT = 'https://app.example/callback';
const SECOND_REDIRECT = 'https://app.example/new-callback';
const PASSWORD = 'correct horse battery';
const insecure = { [oauth.allowInsecureRequests]: true }; // the test server speaks plain HTTP on loopback

describe('oauth4webapi registers a client and manages its registration', () => {
  let t: TestApp;
  let issuer: URL;
  let as: oauth.AuthorizationServer;

  beforeAll(async () => {
    t = await startTestApp({ listen: true });
    await t.admin.createRealm(REALM);
    await t.admin.putScope(REALM, 'orders:read', 'Read your orders');
    const user = await t.admin.request('POST', `/realms/${REALM}/users`, { username: 'alice', password: PASSWORD, claims: { name: 'Alice' } });
    expect(user.statusCode).toBe(201);
    issuer = new URL(`${t.baseUrl}/oauth2/${REALM}`);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecure }));
  });
  afterAll(() => t.close());

  /** The browser side of the code flow, then the exchange by oauth4webapi. */
  async function codeFlow(client: oauth.Client, secret: string, redirectUri: string) {
    const browser = new TestBrowser(t.app, t.baseUrl);
    const flow = await obtainCode(browser, REALM, { clientId: client.client_id, username: 'alice', password: PASSWORD, redirectUri });
    const callback = oauth.validateAuthResponse(as, client, new URL(location(flow.final)), 'state-123');
    return oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.ClientSecretBasic(secret), callback, redirectUri, flow.verifier, insecure),
    );
  }

  const configurationRequest = (uri: string, token: string, method: 'GET' | 'PUT' | 'DELETE', body?: unknown) =>
    fetch(uri, {
      method,
      headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it('registers, gets tokens, reads, replaces and deletes', async () => {
    expect(as.registration_endpoint).toBe(`${issuer.href}/connect/register`);
    // The realm's registration policy allows neither client_credentials nor orders:read; this token does.
    const initialAccessToken = (
      await t.admin.request('POST', `/realms/${REALM}/initial-access-tokens`, { expires_in: 300, grant_types: ['client_credentials'], scope: 'orders:read' })
    ).json().token as string;

    // RFC 7591 §3.1 with the initial access token as a bearer token.
    const registered = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        {
          client_name: 'Self-registered orders app',
          redirect_uris: [FIRST_REDIRECT],
          grant_types: ['authorization_code', 'client_credentials'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_basic',
          scope: 'openid profile orders:read',
        },
        { initialAccessToken, ...insecure },
      ),
    );
    const secret = registered.client_secret as string;
    const registrationToken = registered.registration_access_token as string;
    const registrationUri = registered.registration_client_uri as string;
    expect(registered).toMatchObject({
      client_name: 'Self-registered orders app',
      redirect_uris: [FIRST_REDIRECT],
      client_secret_expires_at: 0,
      registration_client_uri: `${issuer.href}/connect/register/${registered.client_id}`,
    });
    const client: oauth.Client = registered;

    // The initial access token registered one client.
    const again = await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: [FIRST_REDIRECT] }, { initialAccessToken, ...insecure });
    expect(again.status).toBe(401);
    expect(again.headers.get('www-authenticate')).toMatch(/^Bearer /);
    await expect(oauth.processDynamicClientRegistrationResponse(again)).rejects.toThrow();

    // Its credentials work: client credentials...
    const service = await oauth.processClientCredentialsResponse(
      as,
      client,
      await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretBasic(secret), { scope: 'orders:read' }, insecure),
    );
    expect(service.scope).toBe('orders:read');
    const introspection = await oauth.processIntrospectionResponse(
      as,
      client,
      await oauth.introspectionRequest(as, client, oauth.ClientSecretBasic(secret), service.access_token, insecure),
    );
    expect(introspection).toMatchObject({ active: true, client_id: client.client_id });

    // ... and the code flow at its registered redirect URI.
    const signedIn = await codeFlow(client, secret, FIRST_REDIRECT);
    expect(oauth.getValidatedIdTokenClaims(signedIn)).toMatchObject({ aud: client.client_id, iss: issuer.href });

    // RFC 7592 §2.1: read it back, without the secret.
    const read = await configurationRequest(registrationUri, registrationToken, 'GET');
    expect(read.status).toBe(200);
    const current = (await read.json()) as Record<string, unknown>;
    expect(current).toMatchObject({ client_id: client.client_id, client_name: 'Self-registered orders app', redirect_uris: [FIRST_REDIRECT] });
    expect(current).not.toHaveProperty('client_secret');
    expect(current).not.toHaveProperty('registration_access_token');

    // RFC 7592 §2.2: replace it, with a new name and redirect URI.
    const replaced = await configurationRequest(registrationUri, registrationToken, 'PUT', {
      ...current,
      client_secret: secret,
      client_name: 'Renamed orders app',
      redirect_uris: [SECOND_REDIRECT],
    });
    expect(replaced.status).toBe(200);
    expect(await replaced.json()).toMatchObject({ client_name: 'Renamed orders app', redirect_uris: [SECOND_REDIRECT] });

    // The old redirect URI is no longer the client's: /authorize shows its error page and redirects nowhere.
    const old = await t.app.inject({
      method: 'GET',
      url: `/oauth2/${REALM}/authorize?${new URLSearchParams({
        client_id: client.client_id,
        redirect_uri: FIRST_REDIRECT,
        response_type: 'code',
        scope: 'openid',
        code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
        code_challenge_method: 'S256',
      })}`,
    });
    expect(old.statusCode).toBe(400);
    expect(old.headers['content-type']).toMatch(/^text\/html/);
    expect(old.headers.location).toBeUndefined();
    const renamed = { ...client, ...((await (await configurationRequest(registrationUri, registrationToken, 'GET')).json()) as object) } as oauth.Client;
    expect((await codeFlow(renamed, secret, SECOND_REDIRECT)).access_token).toEqual(expect.any(String));

    // RFC 7592 §2.3: delete it.
    const deleted = await configurationRequest(registrationUri, registrationToken, 'DELETE');
    expect(deleted.status).toBe(204);

    // Its tokens are gone, its credentials open nothing, and its registration is unknown.
    const auditor = await t.admin.serviceClient(REALM, '', { introspect_any_token: true });
    const inactive = await introspect(t.app, REALM, auditor, service.access_token);
    expect(inactive.json()).toEqual({ active: false });
    const refused = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretBasic(secret), { scope: 'orders:read' }, insecure);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: 'invalid_client' });
    const gone = await configurationRequest(registrationUri, registrationToken, 'GET');
    expect(gone.status).toBe(401);
    expect(await gone.json()).toMatchObject({ error: 'invalid_token' });
  });
});
