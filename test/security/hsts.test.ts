import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, startTestApp } from '../support/app.js';

/** RFC 6797 (RFC 9700 §2.6): the origin is https only, and browsers are told so. */
describe('Strict-Transport-Security', () => {
  let https: TestApp;
  let http: TestApp;

  beforeAll(async () => {
    https = await startTestApp({ baseUrl: 'https://auth.test' });
    http = await startTestApp({ baseUrl: 'http://localhost:9000' });
  });
  afterAll(async () => {
    await https?.close();
    await http?.close();
  });

  it('is sent on every answer when BASE_URL is https: endpoints, pages, errors, the admin API', async () => {
    for (const url of ['/oauth2/.well-known/openid-configuration', '/oauth2/login', '/oauth2/authorize', '/nowhere', '/admin/realms', '/healthz']) {
      const response = await https.app.inject({ method: 'GET', url });
      expect(response.headers['strict-transport-security'], url).toBe('max-age=31536000');
    }
  });

  it('is not sent when BASE_URL is http, where a browser would ignore it', async () => {
    const response = await http.app.inject({ method: 'GET', url: '/oauth2/.well-known/openid-configuration' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['strict-transport-security']).toBeUndefined();
  });
});
