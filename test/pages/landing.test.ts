import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminPort } from '../../src/http/admin-port.js';
import { type TestApp, startTestApp } from '../support/app.js';
import { unescape } from '../support/flow.js';

/**
 * `GET /` (CONTRACT.md §16): a small page in the visitor's language that links the console (when
 * this port serves it), the documentation and the root realm's discovery; with ADMIN_PORT the
 * public port does not name the admin API at all.
 */
/** The page's links, the language picker's aside (test/pages/language-follows.test.ts). */
const links = (body: string): string[] =>
  [...body.replace(/<nav class="languages".*?<\/nav>/s, '').matchAll(/<a href="([^"]*)"/g)].map((match) => unescape(match[1]!));
const headingOf = (body: string): string | undefined => /<h1>([^<]*)<\/h1>/.exec(body)?.[1];

describe('the landing page, the console on this port', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  it('answers an HTML page with the pages\' CSP, linking the console and the root realm\'s discovery, each of which answers', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toMatch(/^default-src 'none'; style-src 'sha256-[^']+'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'$/);
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.body).not.toContain('<script');
    expect(page.body).toContain('README.md');
    expect(links(page.body)).toEqual(['/admin/console/', '/oauth2/.well-known/openid-configuration']);
    for (const href of links(page.body)) expect((await t.app.inject({ method: 'GET', url: href })).statusCode).toBe(200);
    const discovery = await t.app.inject({ method: 'GET', url: '/oauth2/.well-known/openid-configuration' });
    expect(discovery.json<{ issuer: string }>().issuer).toBe(`${t.baseUrl}/oauth2`);
  });

  it('speaks the visitor\'s language by Accept-Language: English, German, French', async () => {
    const cases = [
      ['en-GB,en;q=0.8', 'en', 'realmgate is running'],
      ['de-DE,de;q=0.9,en;q=0.5', 'de', 'realmgate läuft'],
      ['fr-CH, fr;q=0.9', 'fr', 'realmgate est en marche'],
      ['ja', 'en', 'realmgate is running'],
    ] as const;
    for (const [acceptLanguage, lang, title] of cases) {
      const page = await t.app.inject({ method: 'GET', url: '/', headers: { 'accept-language': acceptLanguage } });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain(`<html lang="${lang}">`);
      expect(unescape(headingOf(page.body) ?? '')).toBe(title);
      expect(links(page.body)).toContain('/admin/console/');
    }
  });

  it('HEAD / answers as GET does, without a body; other methods are refused as on any unknown route', async () => {
    const head = await t.app.inject({ method: 'HEAD', url: '/' });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
    const post = await t.app.inject({ method: 'POST', url: '/', payload: { x: 1 } });
    expect(post.statusCode).toBe(404);
    expect(post.json()).toMatchObject({ error: 'not_found' });
  });
});

describe('the landing page with ADMIN_PORT: the public port does not reveal the admin API', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ adminPort: new AdminPort() });
  });
  afterAll(() => t?.close());

  it('links the discovery document alone, in every language, and names no admin path', async () => {
    for (const acceptLanguage of ['en', 'de', 'fr']) {
      const page = await t.app.inject({ method: 'GET', url: '/', headers: { 'accept-language': acceptLanguage } });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain(`<html lang="${acceptLanguage}">`);
      expect(links(page.body)).toEqual(['/oauth2/.well-known/openid-configuration']);
      expect(page.body).not.toMatch(/\/admin|console/i);
    }
    // And the public port still refuses the console itself.
    expect((await t.app.inject({ method: 'GET', url: '/admin/console/' })).statusCode).toBe(404);
  });
});
