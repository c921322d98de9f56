/**
 * The server the screenshots are made of: realmgate on an in-memory PGlite with a realm "acme"
 * (a display name, a client that asks for consent, a CIBA client, a person), and the steps of a
 * browser through its sign-in page.
 */
import { randomBytes } from 'node:crypto';
import { type AddressInfo, createServer } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { buildApp } from '../../src/app.js';
import { prepare } from '../../src/bootstrap.js';
import { parseSmtpUrl } from '../../src/mail/settings.js';
import { createPgliteDb } from '../../src/store/pglite.js';

export const LANGUAGES = ['en', 'de', 'fr'] as const;
export type Language = (typeof LANGUAGES)[number];
export const WIDTHS = [390, 1280] as const;
export const SCHEMES = ['light', 'dark'] as const;
export const ADMIN_TOKEN = randomBytes(24).toString('base64url');
export const REALM = 'acme';
export const CLIENT = { name: 'Billing Portal', scope: 'openid profile email' };
export const CIBA_CLIENT = { name: 'Checkout Kiosk', scope: 'openid profile', bindingMessage: 'Pay 42.00 EUR at till 7' };
export const PERSON = { username: 'alice', password: 'violet-lantern-93-orbit', claims: { name: 'Alice Martin', given_name: 'Alice', family_name: 'Martin', email: 'alice@acme.example', email_verified: true } };
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

export async function startServer() {
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
  await admin('POST', '/realms', { name: REALM, settings: { display_name: 'Acme Corp', self_registration: true, password_reset: true } });
  const client = await admin('POST', `/realms/${REALM}/clients`, {
    client_type: 'public',
    client_name: CLIENT.name,
    redirect_uris: [`${baseUrl}/callback`],
    grant_types: ['authorization_code'],
    scope: CLIENT.scope,
  });
  const ciba = await admin('POST', `/realms/${REALM}/clients`, {
    client_type: 'confidential',
    token_endpoint_auth_method: 'client_secret_basic',
    client_name: CIBA_CLIENT.name,
    grant_types: ['urn:openid:params:grant-type:ciba'],
    scope: CIBA_CLIENT.scope,
  });
  await admin('POST', `/realms/${REALM}/users`, PERSON);
  const issuer = `${baseUrl}/oauth2/${REALM}`;
  return {
    app,
    issuer,
    clientId: client.client_id as string,
    baseUrl,
    /** Asks, as the CIBA client, for the person's approval: the request the approval page then shows. */
    async askApproval(): Promise<void> {
      const response = await fetch(`${issuer}/bc-authorize`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${encodeURIComponent(ciba.client_id as string)}:${encodeURIComponent(ciba.client_secret as string)}`).toString('base64')}`,
        },
        body: new URLSearchParams({ scope: CIBA_CLIENT.scope, login_hint: PERSON.username, binding_message: CIBA_CLIENT.bindingMessage }),
      });
      if (response.status !== 200) throw new Error(`/bc-authorize: ${response.status} ${await response.text()}`);
    },
  };
}

export type Server = Awaited<ReturnType<typeof startServer>>;

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
export async function atSignIn(browser: Browser, server: Server, language: Language, scheme: (typeof SCHEMES)[number], width: number) {
  const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme, extraHTTPHeaders: { 'accept-language': language } });
  const page = await context.newPage();
  await page.goto(authorizeUrl(server));
  await page.waitForURL((url) => url.pathname.endsWith('/login'));
  return { context, page };
}

export async function signIn(page: Page, language: Language): Promise<void> {
  await page.getByLabel(USERNAME[language]).fill(PERSON.username);
  await page.getByLabel(PASSWORD[language], { exact: true }).fill(PERSON.password);
  await Promise.all([page.waitForURL((url) => url.pathname.endsWith('/consent')), page.getByRole('button', { name: SIGN_IN[language], exact: true }).click()]);
}
