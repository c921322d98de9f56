import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';
import { type ServiceClient, basic, clientCredentials, postForm } from '../support/oauth.js';

const TOKEN_URL = '/oauth2/alpha/access_token';

describe('token endpoint: client credentials', () => {
  let t: TestApp;
  let svc: ServiceClient;

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm('alpha', { access_token_lifetime: 900 });
    svc = await t.admin.serviceClient('alpha', 'api:read api:write');
  });
  afterAll(() => t.close());

  it('issues an opaque 256-bit access token with the client scope, and stores only its hash', async () => {
    const response = await clientCredentials(t.app, 'alpha', svc);
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const body = response.json();
    expect(body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 900, scope: 'api:read api:write' });
    expect(Buffer.from(body.access_token, 'base64url')).toHaveLength(32);
    expect(body.refresh_token).toBeUndefined(); // never for client credentials (RFC 6749 §4.4.3)

    const stored = await t.store.db.query<{ token_hash: Uint8Array }>('SELECT token_hash FROM tokens');
    const dump = JSON.stringify(stored.rows) + Buffer.from(stored.rows[0]!.token_hash).toString('base64url');
    expect(dump).not.toContain(body.access_token);
    const { createHash } = await import('node:crypto');
    const expected = createHash('sha256').update(body.access_token).digest();
    expect(stored.rows.some((row) => Buffer.from(row.token_hash).equals(expected))).toBe(true);
  });

  it('narrows to a requested subset of the client scope', async () => {
    const response = await clientCredentials(t.app, 'alpha', svc, { scope: 'api:read' });
    expect(response.statusCode).toBe(200);
    expect(response.json().scope).toBe('api:read');
  });

  it('refuses a scope beyond the client scope with invalid_scope', async () => {
    const response = await clientCredentials(t.app, 'alpha', svc, { scope: 'api:read admin' });
    expect(response.statusCode).toBe(400);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toEqual({ error: 'invalid_scope', error_description: expect.any(String) });
  });

  it('accepts client_secret_post for a client registered with it', async () => {
    const post = await t.admin.serviceClient('alpha', '', { token_endpoint_auth_method: 'client_secret_post' });
    const response = await postForm(t.app, TOKEN_URL, {
      grant_type: 'client_credentials',
      client_id: post.clientId,
      client_secret: post.secret,
    });
    expect(response.statusCode).toBe(200);
    // …and refuses Basic for it: only the registered method counts.
    const viaBasic = await clientCredentials(t.app, 'alpha', post);
    expect(viaBasic.statusCode).toBe(401);
    expect(viaBasic.json().error).toBe('invalid_client');
  });

  it('answers a wrong secret with 401 invalid_client and a Basic challenge naming the realm', async () => {
    const response = await clientCredentials(t.app, 'alpha', { clientId: svc.clientId, secret: 'wrong' });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Basic realm="alpha"');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
  });

  it('answers an unknown client exactly as a wrong secret', async () => {
    const unknown = await clientCredentials(t.app, 'alpha', { clientId: 'nobody', secret: svc.secret });
    const wrong = await clientCredentials(t.app, 'alpha', { clientId: svc.clientId, secret: 'wrong' });
    expect(unknown.statusCode).toBe(401);
    expect(unknown.headers['www-authenticate']).toBe('Basic realm="alpha"');
    expect(unknown.json()).toEqual(wrong.json());
  });

  it('answers a failed body authentication with 401 invalid_client and no Basic challenge', async () => {
    const response = await postForm(t.app, TOKEN_URL, {
      grant_type: 'client_credentials',
      client_id: svc.clientId,
      client_secret: 'wrong',
    });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBeUndefined();
    expect(response.json().error).toBe('invalid_client');
  });

  it('answers a malformed Basic header with 401 invalid_client', async () => {
    for (const authorization of ['Basic !!!', 'Basic ' + Buffer.from('no-colon').toString('base64'), 'Basic ' + Buffer.from('a:%zz').toString('base64')]) {
      const response = await postForm(t.app, TOKEN_URL, { grant_type: 'client_credentials' }, { authorization });
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Basic realm="alpha"');
      expect(response.json().error).toBe('invalid_client');
    }
  });

  it('form-decodes the client id of a Basic header (RFC 6749 §2.3.1)', async () => {
    const client = await t.admin.serviceClient('alpha', '', { client_id: 'svc:reports@corp.example' });
    const encoded = basic(client.clientId, client.secret);
    expect(Buffer.from(encoded.slice(6), 'base64').toString()).toContain('svc%3Areports%40corp.example:');
    const response = await postForm(t.app, TOKEN_URL, { grant_type: 'client_credentials' }, { authorization: encoded });
    expect(response.statusCode).toBe(200);
  });

  it('requires client authentication', async () => {
    const response = await postForm(t.app, TOKEN_URL, { grant_type: 'client_credentials' });
    expect(response.statusCode).toBe(401);
    expect(response.json().error).toBe('invalid_client');
  });

  it('refuses two authentication methods at once', async () => {
    const response = await postForm(t.app, TOKEN_URL, { grant_type: 'client_credentials', client_secret: svc.secret }, {
      authorization: basic(svc.clientId, svc.secret),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('invalid_request');
  });

  it('refuses a public client: it cannot authenticate for client credentials', async () => {
    const app = await t.admin.createClient('alpha', {
      client_type: 'public',
      grant_types: ['authorization_code'],
      redirect_uris: ['https://app.test/cb'],
    });
    const response = await postForm(t.app, TOKEN_URL, { grant_type: 'client_credentials', client_id: app.client_id });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('unauthorized_client');
  });

  it('answers an unknown grant type with unsupported_grant_type', async () => {
    for (const grantType of ['magic', 'implicit']) {
      const response = await clientCredentials(t.app, 'alpha', svc, { grant_type: grantType });
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toBe('unsupported_grant_type');
    }
  });

  it('answers a grant the client record does not list with unauthorized_client', async () => {
    const webApp = await t.admin.createClient('alpha', { grant_types: ['authorization_code'], redirect_uris: ['https://app.test/cb'] });
    const response = await clientCredentials(t.app, 'alpha', { clientId: webApp.client_id, secret: webApp.client_secret! });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('unauthorized_client');
  });

  it('answers a missing grant_type with invalid_request', async () => {
    const response = await postForm(t.app, TOKEN_URL, {}, { authorization: basic(svc.clientId, svc.secret) });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('invalid_request');
  });

  it('answers any repeated parameter with invalid_request, and issues nothing', async () => {
    const before = await t.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM tokens');
    const forms: Array<Record<string, string | string[]>> = [
      { grant_type: ['client_credentials', 'client_credentials'] },
      { grant_type: 'client_credentials', scope: ['api:read', 'api:write'] },
    ];
    for (const form of forms) {
      const response = await clientCredentials(t.app, 'alpha', svc, form);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ error: 'invalid_request', error_description: expect.stringContaining('repeated') });
    }
    const repeatedClientId = await postForm(t.app, TOKEN_URL, {
      grant_type: 'client_credentials',
      client_id: [svc.clientId, svc.clientId],
      client_secret: svc.secret,
    });
    expect(repeatedClientId.json().error).toBe('invalid_request');
    const after = await t.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM tokens');
    expect(after.rows[0]!.n).toBe(before.rows[0]!.n);
  });

  it('ignores unknown parameters', async () => {
    const response = await clientCredentials(t.app, 'alpha', svc, { foo: ['1', '2'], bar: 'x' });
    expect(response.statusCode).toBe(200);
  });

  it('accepts only form bodies, answering others in the error shape', async () => {
    const json = await t.app.inject({
      method: 'POST',
      url: TOKEN_URL,
      headers: { 'content-type': 'application/json', authorization: basic(svc.clientId, svc.secret) },
      payload: JSON.stringify({ grant_type: 'client_credentials' }),
    });
    expect(json.statusCode).toBe(415);
    expect(json.headers['cache-control']).toBe('no-store');
    expect(json.json()).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
  });

  it('answers an oversized body with 413 in the error shape', async () => {
    const response = await clientCredentials(t.app, 'alpha', svc, { scope: 'a'.repeat(100_000) });
    expect(response.statusCode).toBe(413);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
  });

  it('counts issued tokens per grant in /metrics', async () => {
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.body).toMatch(/tokens_issued_total\{grant_type="client_credentials"\} [1-9]/);
    expect(metrics.body).toMatch(/http_request_duration_seconds_bucket\{[^}]*route="\/oauth2\/:realm\/access_token"/);
  });
});
