/**
 * Makes the screenshots of docs/screenshots/ and its README.md again:
 *
 *     npx tsx docs/screenshots/make.ts
 *
 * It starts the server on an in-memory PGlite, with a realm "acme" (display name, a client that
 * asks for consent, a person), and visits its pages in Chromium (/usr/bin/chromium, or
 * CHROMIUM): the sign-in and consent pages at 390 and 1280 px in each language, as PNG; and every
 * page in the light and dark colour schemes, measuring the contrast of each text with what is
 * behind it (test/browser/page-metrics.ts, as test/browser/layout-contrast.test.ts does), of
 * which README.md lists the lowest per page.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { type Browser, type Page, chromium } from 'playwright-core';
import { buildApp } from '../../src/app.js';
import { prepare } from '../../src/bootstrap.js';
import { parseSmtpUrl } from '../../src/mail/settings.js';
import { createPgliteDb } from '../../src/store/pglite.js';
import { type TextContrast, lowestContrast, measurePage } from '../../test/browser/page-metrics.js';

const OUT = fileURLToPath(new URL('.', import.meta.url));
const LANGUAGES = ['en', 'de', 'fr'] as const;
const WIDTHS = [390, 1280] as const;
const SCHEMES = ['light', 'dark'] as const;
const ADMIN_TOKEN = randomBytes(24).toString('base64url');
const CLIENT = { name: 'Billing Portal', scope: 'openid profile email' };
const PERSON = { username: 'alice', password: 'violet-lantern-93-orbit' };
const SIGN_IN = { en: 'Sign in', de: 'Anmelden', fr: 'Se connecter' } as const;
const USERNAME = { en: 'Username', de: 'Benutzername', fr: 'Nom d’utilisateur' } as const;
const PASSWORD = { en: 'Password', de: 'Passwort', fr: 'Mot de passe' } as const;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startServer() {
  const db = await createPgliteDb('memory://');
  const { store, encryption, adminToken } = await prepare(db, { masterKey: randomBytes(32), adminToken: ADMIN_TOKEN });
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  // Registration and password reset need outgoing mail configured; viewing their forms sends none.
  const mail = { smtp: parseSmtpUrl('smtp://127.0.0.1:1'), from: 'Acme <no-reply@acme.example>' };
  const app = await buildApp({ config: { baseUrl, trustProxy: false, mail }, store, encryption, adminTokenHash: adminToken.hash, cleanup: false });
  await app.listen({ port, host: '127.0.0.1' });
  const admin = async (method: 'POST' | 'PUT', url: string, body: object) => {
    const response = await app.inject({ method, url: `/admin${url}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: body });
    if (response.statusCode >= 300) throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
    return response.json() as Record<string, unknown>;
  };
  await admin('POST', '/realms', { name: 'acme', settings: { display_name: 'Acme Corp', self_registration: true, password_reset: true } });
  const client = await admin('POST', '/realms/acme/clients', {
    client_type: 'public',
    client_name: CLIENT.name,
    redirect_uris: [`${baseUrl}/callback`],
    grant_types: ['authorization_code'],
    scope: CLIENT.scope,
  });
  await admin('POST', '/realms/acme/users', PERSON);
  return { app, issuer: `${baseUrl}/oauth2/acme`, clientId: client.client_id as string, baseUrl };
}

type Server = Awaited<ReturnType<typeof startServer>>;

const authorizeUrl = (server: Server) =>
  `${server.issuer}/authorize?${new URLSearchParams({
    client_id: server.clientId,
    response_type: 'code',
    redirect_uri: `${server.baseUrl}/callback`,
    scope: CLIENT.scope,
    state: 'screenshot',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  })}`;

/** A browser context in `language` and `scheme`, at the sign-in page of a new request. */
async function atSignIn(browser: Browser, server: Server, language: (typeof LANGUAGES)[number], scheme: (typeof SCHEMES)[number], width: number) {
  const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme, extraHTTPHeaders: { 'accept-language': language } });
  const page = await context.newPage();
  await page.goto(authorizeUrl(server));
  await page.waitForURL((url) => url.pathname.endsWith('/login'));
  return { context, page };
}

async function signIn(page: Page, language: (typeof LANGUAGES)[number]): Promise<void> {
  await page.getByLabel(USERNAME[language]).fill(PERSON.username);
  await page.getByLabel(PASSWORD[language], { exact: true }).fill(PERSON.password);
  await Promise.all([page.waitForURL((url) => url.pathname.endsWith('/consent')), page.getByRole('button', { name: SIGN_IN[language], exact: true }).click()]);
}

async function screenshots(browser: Browser, server: Server): Promise<string[]> {
  const files: string[] = [];
  for (const language of LANGUAGES) {
    for (const width of WIDTHS) {
      const { context, page } = await atSignIn(browser, server, language, 'light', width);
      for (const [name, next] of [['sign-in', () => signIn(page, language)], ['consent', async () => {}]] as const) {
        const file = `${name}-${language}-${width}.png`;
        await page.screenshot({ path: `${OUT}${file}`, fullPage: true });
        files.push(file);
        await next();
      }
      await context.close();
    }
  }
  return files;
}

/** The lowest contrast of each page, in each scheme, over the languages and widths. */
async function contrasts(browser: Browser, server: Server): Promise<Map<string, Map<string, TextContrast & { where: string }>>> {
  const lowest = new Map<string, Map<string, TextContrast & { where: string }>>();
  const keep = (page: string, scheme: string, where: string, found: TextContrast | undefined) => {
    if (!found) throw new Error(`no text measured on ${page}`);
    const byScheme = lowest.get(page) ?? new Map();
    lowest.set(page, byScheme);
    const current = byScheme.get(scheme);
    if (!current || found.ratio < current.ratio) byScheme.set(scheme, { ...found, where });
  };
  for (const scheme of SCHEMES) {
    for (const language of LANGUAGES) {
      for (const width of WIDTHS) {
        const { context, page } = await atSignIn(browser, server, language, scheme, width);
        const measure = async (name: string) => keep(name, scheme, `${language}, ${width} px`, lowestContrast(await measurePage(page)));
        await measure('sign-in');
        await signIn(page, language);
        await measure('consent');
        for (const [name, path] of [
          ['device', '/device/user'],
          ['account', '/account'],
          ['register', '/register'],
          ['reset', '/reset'],
          ['sign-out', '/connect/endSession'],
          ['error', '/authorize?client_id=unknown'],
        ] as const) {
          await page.goto(`${server.issuer}${path}`);
          await measure(name);
        }
        await context.close();
      }
    }
  }
  return lowest;
}

function readme(files: readonly string[], lowest: Map<string, Map<string, TextContrast & { where: string }>>): string {
  const figure = (found: (TextContrast & { where: string }) | undefined) =>
    found ? `${found.ratio.toFixed(2)}:1 (${found.element}, ${found.color} on ${found.background}; ${found.where})` : '';
  const rows = [...lowest].map(([page, byScheme]) => `| ${page} | ${figure(byScheme.get('light'))} | ${figure(byScheme.get('dark'))} |`);
  const images = LANGUAGES.map(
    (language) =>
      `| ${language} | ${files
        .filter((file) => file.includes(`-${language}-`))
        .map((file) => `[${file.replace('.png', '')}](${file})`)
        .join(' · ')} |`,
  );
  return `# Screenshots

The sign-in and consent pages of a realm ("Acme Corp", its client "${CLIENT.name}") in each
language, at a phone's width (390 px) and a desktop's (1280 px), in the light colour scheme.
\`npx tsx docs/screenshots/make.ts\` makes them, and this page, again.

| Language | Pages |
|---|---|
${images.join('\n')}

## Contrast

The lowest contrast ratio of any text with what is behind it, per page, over the three languages
at 390 and 1280 px (WCAG AA asks 4.5:1, 3:1 for large text), measured in Chromium as
\`test/browser/layout-contrast.test.ts\` measures it; the element, its colour and its background:

| Page | Light scheme | Dark scheme |
|---|---|---|
${rows.join('\n')}
`;
}

async function main(): Promise<void> {
  const server = await startServer();
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--font-render-hinting=none'],
  });
  try {
    const files = await screenshots(browser, server);
    const lowest = await contrasts(browser, server);
    writeFileSync(`${OUT}README.md`, readme(files, lowest));
    console.info(`wrote ${files.length} screenshots and README.md to ${OUT}`);
  } finally {
    await browser.close();
    await server.app.close();
  }
}

await main();
