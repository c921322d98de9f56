import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';

/** A certified client library drives a sub-realm over a real listening server. */
describe('oauth4webapi against a sub-realm', () => {
  let t: TestApp;
  const insecure = { [oauth.allowInsecureRequests]: true }; // the test server speaks plain HTTP on loopback

  beforeAll(async () => {
    t = await startTestApp({ listen: true });
    await t.admin.createRealm('alpha');
  });
  afterAll(() => t.close());

  it('discovers, gets a token by client credentials, introspects it, revokes it, and sees it inactive', async () => {
    const svc = await t.admin.serviceClient('alpha', 'orders:read', { introspect_any_token: false });
    const issuer = new URL(`${t.baseUrl}/oauth2/alpha`);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecure }));
    expect(as.issuer).toBe(issuer.href);
    expect(as.token_endpoint).toBe(`${issuer.href}/access_token`);

    const client: oauth.Client = { client_id: svc.clientId };
    const auth = oauth.ClientSecretBasic(svc.secret);
    const tokens = await oauth.processClientCredentialsResponse(
      as,
      client,
      await oauth.clientCredentialsGrantRequest(as, client, auth, { scope: 'orders:read' }, insecure),
    );
    expect(tokens.token_type).toBe('bearer'); // oauth4webapi lower-cases it
    expect(tokens.scope).toBe('orders:read');

    const active = await oauth.processIntrospectionResponse(as, client, await oauth.introspectionRequest(as, client, auth, tokens.access_token, insecure));
    expect(active).toMatchObject({ active: true, client_id: svc.clientId, scope: 'orders:read', iss: issuer.href });

    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, tokens.access_token, insecure));

    const inactive = await oauth.processIntrospectionResponse(as, client, await oauth.introspectionRequest(as, client, auth, tokens.access_token, insecure));
    expect(inactive).toEqual({ active: false });
  });

  it('discovers through the RFC 8414 path as well', async () => {
    const issuer = new URL(`${t.baseUrl}/oauth2/alpha`);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
    expect(as.introspection_endpoint).toBe(`${issuer.href}/introspect`);
  });
});
