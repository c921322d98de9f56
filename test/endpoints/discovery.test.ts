import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';

describe('discovery of the browser flow', () => {
  let t: TestApp;

  const metadata = async (url: string) => {
    const response = await t.app.inject({ method: 'GET', url });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    return response.json() as Record<string, unknown>;
  };

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm('alpha');
    await t.admin.createRealm('pushy', { require_par: true });
  });
  afterAll(() => t.close());

  it.each([
    ['root', '/oauth2/.well-known/openid-configuration', 'https://auth.test/oauth2'],
    ['alpha', '/oauth2/alpha/.well-known/openid-configuration', 'https://auth.test/oauth2/alpha'],
    ['alpha (RFC 8414 path)', '/.well-known/oauth-authorization-server/oauth2/alpha', 'https://auth.test/oauth2/alpha'],
    ['root (RFC 8414 path)', '/.well-known/oauth-authorization-server/oauth2', 'https://auth.test/oauth2'],
  ])('lists the browser flow endpoints of %s under its issuer', async (_label, url, issuer) => {
    const body = await metadata(url);
    expect(body.issuer).toBe(issuer);
    expect(body.authorization_endpoint).toBe(`${issuer}/authorize`);
    expect(body.token_endpoint).toBe(`${issuer}/access_token`);
    expect(body.userinfo_endpoint).toBe(`${issuer}/userinfo`);
    expect(body.end_session_endpoint).toBe(`${issuer}/connect/endSession`);
    expect(body.backchannel_logout_supported).toBe(true);
    expect(body.backchannel_logout_session_supported).toBe(true);
    expect(body.frontchannel_logout_supported).toBe(true);
    expect(body.frontchannel_logout_session_supported).toBe(true);
    expect(body.pushed_authorization_request_endpoint).toBe(`${issuer}/par`);
    expect(body.jwks_uri).toBe(`${issuer}/connect/jwk_uri`);
    expect(body.response_types_supported).toEqual(['code']);
    expect(body.code_challenge_methods_supported).toEqual(['S256']);
    expect(body.authorization_response_iss_parameter_supported).toBe(true);
    expect(body.tls_client_certificate_bound_access_tokens).toBe(true);
    expect(body.id_token_signing_alg_values_supported).toEqual(expect.arrayContaining(['RS256', 'ES256']));
    expect(body.id_token_signing_alg_values_supported).not.toContain('none');
    expect(body.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code']));
    expect(body.grant_types_supported).not.toContain('implicit');
    expect(body.require_pushed_authorization_requests).toBe(false);
    expect(body.scopes_supported).toEqual(expect.arrayContaining(['openid']));
    expect(body.subject_types_supported).toEqual(expect.arrayContaining(['public']));
    expect(body.device_authorization_endpoint).toBe(`${issuer}/device/code`);
    expect(body.backchannel_authentication_endpoint).toBe(`${issuer}/bc-authorize`);
  });

  it('describes CIBA as built: poll and ping modes, asymmetric request object signatures, no user code', async () => {
    const body = await metadata('/oauth2/alpha/.well-known/openid-configuration');
    expect(body.backchannel_token_delivery_modes_supported).toEqual(['poll', 'ping', 'push']);
    expect(body.backchannel_user_code_parameter_supported).toBe(false);
    const algs = body.backchannel_authentication_request_signing_alg_values_supported as string[];
    expect(algs).toEqual(expect.arrayContaining(['RS256', 'PS256', 'ES256', 'EdDSA']));
    for (const refused of ['none', 'HS256', 'HS384', 'HS512']) expect(algs).not.toContain(refused);
  });

  it('advertises require_pushed_authorization_requests as the realm sets it', async () => {
    expect((await metadata('/oauth2/pushy/.well-known/openid-configuration')).require_pushed_authorization_requests).toBe(true);
    expect((await metadata('/.well-known/oauth-authorization-server/oauth2/pushy')).require_pushed_authorization_requests).toBe(true);
    expect((await metadata('/oauth2/alpha/.well-known/openid-configuration')).require_pushed_authorization_requests).toBe(false);
  });

  it('follows a change of the setting', async () => {
    await t.admin.createRealm('later');
    expect((await metadata('/oauth2/later/.well-known/openid-configuration')).require_pushed_authorization_requests).toBe(false);
    const patched = await t.admin.request('PATCH', '/realms/later', { settings: { require_par: true } });
    expect(patched.statusCode).toBe(200);
    expect((await metadata('/oauth2/later/.well-known/openid-configuration')).require_pushed_authorization_requests).toBe(true);
  });

  it('serves the same document at both paths', async () => {
    expect(await metadata('/.well-known/oauth-authorization-server/oauth2/alpha')).toEqual(
      await metadata('/oauth2/alpha/.well-known/openid-configuration'),
    );
  });

  it('advertises only endpoints that answer', async () => {
    const body = await metadata('/oauth2/alpha/.well-known/openid-configuration');
    for (const field of ['authorization_endpoint', 'end_session_endpoint']) {
      const url = new URL(body[field] as string);
      const response = await t.app.inject({ method: 'GET', url: url.pathname });
      expect(response.statusCode, `${field}: ${response.body.slice(0, 200)}`).not.toBe(404);
    }
    for (const field of ['pushed_authorization_request_endpoint', 'token_endpoint', 'backchannel_authentication_endpoint', 'device_authorization_endpoint']) {
      const url = new URL(body[field] as string);
      const response = await t.app.inject({ method: 'POST', url: url.pathname, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' });
      expect(response.statusCode, `${field}: ${response.body.slice(0, 200)}`).not.toBe(404);
    }
    const userinfo = await t.app.inject({ method: 'GET', url: new URL(body.userinfo_endpoint as string).pathname });
    expect(userinfo.statusCode).toBe(401);
  });

  it('answers 404 for a realm whose provider is disabled', async () => {
    await t.admin.createRealm('off', { oauth2_enabled: false });
    const response = await t.app.inject({ method: 'GET', url: '/oauth2/off/.well-known/openid-configuration' });
    expect(response.statusCode).toBe(404);
    const authorize = await t.app.inject({ method: 'GET', url: '/oauth2/off/authorize?client_id=x' });
    expect(authorize.statusCode).toBe(404);
  });
});
