import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { BASE_URL, type TestApp } from './app.js';
import { REDIRECT_URI, type TestBrowser, location, pkce } from './flow.js';
import { realmPath } from './oauth.js';

/** The issuer of a realm of a test app on the default BASE_URL. */
export const issuerOf = (realm: string, baseUrl = BASE_URL): string => `${baseUrl}${realmPath(realm)}`;

/** A new realm of its own for a test, so that sessions, consents and settings do not mix. */
export async function freshRealm(t: TestApp, settings: Record<string, unknown> = {}): Promise<string> {
  const name = `r-${randomBytes(5).toString('hex')}`;
  await t.admin.createRealm(name, settings);
  return name;
}

type Params = Record<string, string | string[] | undefined>;

/** A query (or form) where an array value repeats the parameter and undefined leaves it out. */
export function query(params: Params): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) search.append(name, item);
  }
  return search.toString();
}

/** The parameters of a valid request of a public client, which `overrides` change. */
export function codeRequest(clientId: string, overrides: Params = {}): Params {
  return {
    client_id: clientId,
    response_type: 'code',
    redirect_uri: REDIRECT_URI,
    scope: 'openid profile',
    state: 'state-123',
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
    ...overrides,
  };
}

export function authorize(browser: TestBrowser, realm: string, params: Params): Promise<LightMyRequestResponse> {
  return browser.get(`${realmPath(realm)}/authorize?${query(params)}`);
}

/** The path of a redirect's target, e.g. `/oauth2/r-x/login`. */
export function redirectPath(response: LightMyRequestResponse): string {
  return new URL(location(response), BASE_URL).pathname;
}

/** The HTML error page: 400, never a redirect. */
export function expectErrorPage(response: LightMyRequestResponse, status = 400): void {
  expect(response.statusCode, response.body.slice(0, 500)).toBe(status);
  expect(response.headers['content-type']).toMatch(/^text\/html/);
  expect(response.headers.location).toBeUndefined();
  expect(response.body).toMatch(/^<!doctype html>/i);
}

/** An error sent back to the client's redirect URI (RFC 6749 §4.1.2.1, RFC 9207). */
export function expectRedirectError(
  response: LightMyRequestResponse,
  expected: { error: string; iss: string; state?: string | null; redirectUri?: string },
): URLSearchParams {
  expect(response.statusCode, response.body.slice(0, 500)).toBe(303);
  const target = new URL(location(response));
  expect(`${target.origin}${target.pathname}`).toBe(expected.redirectUri ?? REDIRECT_URI);
  const params = target.searchParams;
  expect(params.get('error')).toBe(expected.error);
  expect(params.get('error_description')).toEqual(expect.any(String));
  expect(params.get('code')).toBeNull();
  expect(params.get('iss')).toBe(expected.iss);
  expect(params.get('state')).toBe(expected.state === undefined ? 'state-123' : expected.state);
  return params;
}

/** A redirect back to the client with a code, its state and the issuer. */
export function expectCode(response: LightMyRequestResponse, expected: { iss: string; state?: string | null; redirectUri?: string }): string {
  expect(response.statusCode, response.body.slice(0, 500)).toBe(303);
  const target = new URL(location(response));
  expect(`${target.origin}${target.pathname}`).toBe(expected.redirectUri ?? REDIRECT_URI);
  expect(target.searchParams.get('error')).toBeNull();
  expect(target.searchParams.get('iss')).toBe(expected.iss);
  expect(target.searchParams.get('state')).toBe(expected.state === undefined ? 'state-123' : expected.state);
  const code = target.searchParams.get('code');
  expect(code).toEqual(expect.any(String));
  return code!;
}

/** Follows a redirect to the sign-in page and submits it. */
export async function signInFrom(
  browser: TestBrowser,
  response: LightMyRequestResponse,
  credentials: { username: string; password: string },
): Promise<LightMyRequestResponse> {
  expect(redirectPath(response)).toMatch(/\/login$/);
  const url = location(response);
  const page = await browser.get(url);
  expect(page.statusCode).toBe(200);
  return browser.submit(url, page, { username: credentials.username, password: credentials.password });
}

/** Follows a redirect to the consent page and submits a decision. */
export async function consentFrom(
  browser: TestBrowser,
  response: LightMyRequestResponse,
  decision: 'allow' | 'deny' = 'allow',
): Promise<LightMyRequestResponse> {
  expect(redirectPath(response)).toMatch(/\/consent$/);
  const url = location(response);
  const page = await browser.get(url);
  expect(page.statusCode).toBe(200);
  return browser.submit(url, page, { decision });
}

/**
 * Drives the pages after /authorize (sign-in, consent when shown) to the redirect back to
 * the client, and records which pages were shown.
 */
export async function completeFlow(
  browser: TestBrowser,
  first: LightMyRequestResponse,
  credentials: { username: string; password: string },
): Promise<{ final: LightMyRequestResponse; pages: string[] }> {
  let response = first;
  const pages: string[] = [];
  for (let step = 0; step < 4; step++) {
    if (response.statusCode !== 303) return { final: response, pages };
    const path = redirectPath(response);
    if (path.endsWith('/login')) {
      pages.push('login');
      response = await signInFrom(browser, response, credentials);
    } else if (path.endsWith('/consent')) {
      pages.push('consent');
      response = await consentFrom(browser, response, 'allow');
    } else {
      return { final: response, pages };
    }
  }
  throw new Error('the flow did not end');
}

/** A confidential client of the code flow, with the registered redirect URI. */
export async function confidentialClient(t: TestApp, realm: string, extra: Record<string, unknown> = {}) {
  const created = await t.admin.createClient(realm, {
    client_type: 'confidential',
    redirect_uris: [REDIRECT_URI],
    grant_types: ['authorization_code'],
    scope: 'openid profile',
    ...extra,
  });
  return { clientId: created.client_id, secret: created.client_secret as string };
}

/** The Set-Cookie header of a cookie, whole, as the browser receives it. */
export function setCookieHeader(response: LightMyRequestResponse, name: string): string | undefined {
  const raw = response.headers['set-cookie'];
  const all = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  return all.find((header) => header.startsWith(`${name}=`));
}

/** A public client of the code flow with PKCE, in `realm`; `extra` changes its record. */
export async function publicClient(t: TestApp, realm: string, scope: string, extra: Record<string, unknown> = {}): Promise<string> {
  const client = await t.admin.createClient(realm, {
    client_type: 'public',
    redirect_uris: [REDIRECT_URI],
    grant_types: ['authorization_code'],
    scope,
    ...extra,
  });
  return client.client_id;
}

/** How many rows of a table of the browser flow (sessions, codes…) belong to a person. */
export async function rowsOf(t: TestApp, table: 'sessions' | 'authorization_codes', sub: string): Promise<number> {
  const result = await t.store.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE user_id = $1`, [sub]);
  return result.rows[0]!.n;
}
