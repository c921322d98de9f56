import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestApp, startTestApp } from '../support/app.js';
import { routeTable } from '../security/support.js';

/**
 * The admin console's page and files (src/admin/console/): served without the admin token,
 * holding no data, under a strict CSP, loading nothing but this server's own modules, which
 * set text only as text and keep the token for the tab only.
 */
describe('the admin console at /admin/console', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
    await t.admin.createRealm('console-private-realm');
  });
  afterAll(() => t.close());

  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

  async function page(): Promise<string> {
    const response = await get('/admin/console');
    expect(response.statusCode, response.body).toBe(200);
    return response.body;
  }

  /** The files the page names, as absolute paths. */
  const pageFiles = (body: string): string[] => [...body.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);

  /** Every script reachable from main.js through its imports, with its text (the build bundles the modules into main.js alone). */
  async function modules(): Promise<Map<string, string>> {
    const main = pageFiles(await page()).find((path) => path.endsWith('/main.js'))!;
    const found = new Map<string, string>();
    const queue = [main];
    while (queue.length > 0) {
      const path = queue.shift()!;
      if (found.has(path)) continue;
      const response = await get(path);
      expect(response.statusCode, path).toBe(200);
      found.set(path, response.body);
      for (const [, specifier] of response.body.matchAll(/^import [^;]+ from '([^']+)';$/gm)) queue.push(new URL(specifier!, `http://x${path}`).pathname);
    }
    return found;
  }

  it('serves the page without the admin token, with a strict CSP and no caching of a stale version', async () => {
    for (const url of ['/admin/console', '/admin/console/']) {
      const response = await get(url);
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      const csp = String(response.headers['content-security-policy']).split('; ');
      expect(csp).toEqual(
        expect.arrayContaining([
          "default-src 'none'",
          "script-src 'self'",
          "style-src 'self'",
          "connect-src 'self'",
          "frame-ancestors 'none'",
          "base-uri 'none'",
          "form-action 'none'",
          "require-trusted-types-for 'script'",
          "trusted-types 'none'",
        ]),
      );
      expect(csp.join(' ')).not.toMatch(/unsafe-|https?:|\*|data:/);
      expect(response.headers['x-frame-options']).toBe('DENY');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['referrer-policy']).toBe('no-referrer');
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.headers['set-cookie']).toBeUndefined();
    }
  });

  it('is worded in English for the script to put in the chosen language, and says it needs JavaScript in every language', async () => {
    const body = await page();
    expect(body).toContain('<html lang="en">');
    expect(body).toContain('<h1 id="console-title">realmgate admin console</h1>');
    const noscript = /<noscript>([\s\S]*?)<\/noscript>/.exec(body)?.[1] ?? '';
    expect([...noscript.matchAll(/<p lang="(\w+)">/g)].map((match) => match[1])).toEqual(['en', 'de', 'fr']);
    expect(noscript).toContain('Die Administrationskonsole benötigt JavaScript.');
    expect(noscript).toContain('La console d’administration nécessite JavaScript.');
  });

  it('holds no data: the same page with or without the token, naming no realm', async () => {
    const anonymous = await page();
    const withToken = await get('/admin/console', { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect(withToken.body).toBe(anonymous);
    expect(anonymous).not.toContain('console-private-realm');
    expect(anonymous).not.toContain(ADMIN_TOKEN);
  });

  it('runs no inline script or style and loads nothing from elsewhere: only its own versioned files', async () => {
    const body = await page();
    expect(body).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(body).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
    const files = pageFiles(body);
    expect(files.length).toBeGreaterThanOrEqual(3);
    for (const path of files) expect(path).toMatch(/^\/admin\/console\/[0-9a-f]{16}\/[a-z]+\.(js|css|svg)$/);
    expect(body).toMatch(/<script type="module" src="\/admin\/console\/[0-9a-f]{16}\/main\.js"><\/script>/);
  });

  it('serves every file the page names, and every module they import, without the token, cacheable for a year', async () => {
    const files = new Set([...pageFiles(await page()), ...(await modules()).keys()]);
    expect(files.size).toBeGreaterThanOrEqual(3);
    for (const path of files) {
      const response = await get(path);
      expect(response.statusCode, path).toBe(200);
      const type = { css: 'text/css; charset=utf-8', js: 'text/javascript; charset=utf-8', svg: 'image/svg+xml' }[path.split('.').at(-1)!];
      expect(response.headers['content-type'], path).toBe(type);
      expect(response.headers['cache-control'], path).toBe('public, max-age=31536000, immutable');
      expect(response.headers['x-content-type-options'], path).toBe('nosniff');
      expect(response.headers['set-cookie'], path).toBeUndefined();
    }
  });

  it('answers 404 for a file of another version or outside a version, never a stale copy', async () => {
    const main = pageFiles(await page()).find((path) => path.endsWith('/main.js'))!;
    const version = main.split('/')[3]!;
    for (const url of [main.replace(version, '0'.repeat(16)), '/admin/console/main.js', `/admin/console/${version}/nothing.js`, `/admin/console/${version}/../main.js`]) {
      const response = await get(url);
      expect(response.statusCode, url).toBe(404);
      expect(response.body, url).not.toContain('sessionStorage');
    }
  });

  it('reads no input: hostile queries, headers, bodies and methods get the same bytes or a refusal, never an echo', async () => {
    const body = await page();
    const main = pageFiles(body).find((path) => path.endsWith('/main.js'))!;
    const script = (await get(main)).body;
    const hostile = '<script>alert(1)</script>"\'><img src=x onerror=alert(1)>';
    for (const [url, expected] of [['/admin/console', body], [main, script]] as const) {
      for (const request of [
        { url: `${url}?q=${encodeURIComponent(hostile)}&token=${encodeURIComponent(hostile)}` },
        { url, headers: { authorization: `Bearer ${hostile}`, cookie: `token=${encodeURIComponent(hostile)}`, referer: `https://evil.example/${encodeURIComponent(hostile)}` } },
        { url, headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ html: hostile }) },
      ]) {
        const response = await t.app.inject({ method: 'GET', ...request });
        expect(response.statusCode, request.url).toBe(200);
        expect(response.body).toBe(expected);
      }
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
        const response = await t.app.inject({ method, url, headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ html: hostile }) });
        expect(response.statusCode, `${method} ${url}`).toBe(404);
        expect(response.body).not.toContain('alert(1)');
      }
    }
  });

  it('registers only the page (also as the sign-in callback) and its files under /admin/console, GET and HEAD alone', async () => {
    const routes = routeTable(t.app).filter(({ path }) => path.startsWith('/admin/console'));
    const files = new Set([...pageFiles(await page()), ...(await modules()).keys()]);
    expect(routes.map(({ path }) => path).sort()).toEqual(['/admin/console', '/admin/console/', '/admin/console/callback', ...files].sort());
    for (const { methods } of routes) expect(methods.sort()).toEqual(['GET', 'HEAD']);
    // The admin API itself still wants its token.
    expect((await get('/admin/realms')).statusCode).toBe(401);
  });

  it('sets text only as text, keeps the token in sessionStorage alone, and calls this server alone', async () => {
    const texts = await modules();
    expect([...texts.keys()].map((path) => path.split('/').at(-1))).toEqual(['main.js']);
    const script = [...texts.values()][0]!;
    // One bundle of the console's TypeScript modules (src/admin/console/browser/), each named in it by esbuild.
    const bundled = [...script.matchAll(/^\s*\/\/ src\/admin\/console\/browser\/([a-z0-9-]+)\.ts$/gm)].map((match) => match[1]);
    expect(bundled.sort()).toEqual(['acr-journeys', 'api', 'audiences', 'authorization-types', 'client-fields', 'clients', 'documents', 'dom', 'events', 'form-errors', 'i18n', 'issuers', 'journey-editor', 'journey-graph', 'journey-node-fields', 'journeys', 'keys', 'language-picker', 'localised-fields', 'main', 'permissions', 'person-claims', 'providers', 'realms', 'registration', 'resources', 'roles', 'scope-claims', 'scopes', 'session', 'setting-sections', 'settings', 'snippet', 'texts', 'texts-fields', 'user-actions', 'users']);
    expect(script).not.toMatch(/^\s*(import|export)\b/m);
    expect(script).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function|srcdoc/);
    // localStorage keeps the console's language alone (i18n.ts), never a token.
    const storageUses = [...script.matchAll(/localStorage\.\w+\([^)]*\)/g)].map((match) => match[0]);
    expect(storageUses.sort()).toEqual(['localStorage.getItem(STORAGE_KEY)', 'localStorage.setItem(STORAGE_KEY, locale)']);
    expect(script).toContain('STORAGE_KEY = "realmgate.console.locale"');
    expect(script.replace(/localStorage\.\w+\(STORAGE_KEY[^)]*\)/g, '')).not.toMatch(/localStorage|document\.cookie|indexedDB/);
    // The admin API, and the root realm's token and revocation endpoints (the console signs in through root).
    expect(script).not.toMatch(/https?:\/\/|fetch\((?!"\/admin"|ISSUER_PATH \+ "\/(access_token|token\/revoke)")/);
    expect(script).toContain('sessionStorage.setItem(TOKEN_KEY, token)');
    expect(script).toContain('headers.authorization = "Bearer " + token');
    expect(script).toContain('credentials: "omit"');
  });
});
