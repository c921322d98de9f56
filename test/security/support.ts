import { randomBytes } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import { expect } from 'vitest';
import { NO_RATE_LIMITS, type TestApp } from '../support/app.js';
import { TestBrowser, location, unescape } from '../support/flow.js';
import { realmPath } from '../support/oauth.js';
import { type TestUser, createUser } from '../support/users.js';


/** A realm of its own for a test, without rate limits unless `settings` sets them. */
export async function securityRealm(t: TestApp, settings: Record<string, unknown> = {}): Promise<string> {
  const name = `sec-${randomBytes(5).toString('hex')}`;
  await t.admin.createRealm(name, { ...NO_RATE_LIMITS, ...settings });
  return name;
}

export const personIn = (t: TestApp, realm: string): Promise<TestUser> => createUser(t.admin, realm, `u-${randomBytes(4).toString('hex')}`);

/** A response as a browser saw it, with the request that brought it. */
export interface Seen {
  method: 'GET' | 'POST';
  url: string;
  response: LightMyRequestResponse;
}

/** A TestBrowser that keeps every response it received, for checks that hold of all of them. */
export class RecordingBrowser extends TestBrowser {
  readonly seen: Seen[] = [];

  override async get(url: string): Promise<LightMyRequestResponse> {
    const response = await super.get(url);
    this.seen.push({ method: 'GET', url: this.local(url), response });
    return response;
  }

  override async post(url: string, form: Record<string, string>): Promise<LightMyRequestResponse> {
    const response = await super.post(url, form);
    this.seen.push({ method: 'POST', url: this.local(url), response });
    return response;
  }
}

/** A browser signed in at a realm through its own sign-in page (via the account page, which needs one). */
export async function signedInBrowser(t: TestApp, realm: string, user: Pick<TestUser, 'username' | 'password'>, browser = new TestBrowser(t.app, t.baseUrl)) {
  const start = await browser.get(`${realmPath(realm)}/account`);
  expect(start.statusCode, start.body.slice(0, 300)).toBe(303);
  const loginUrl = location(start);
  const answer = await browser.submit(loginUrl, await browser.get(loginUrl), { username: user.username, password: user.password });
  expect(answer.statusCode, answer.body.slice(0, 300)).toBe(303);
  expect(location(answer)).toBe(`${t.baseUrl}${realmPath(realm)}/account`);
  return browser;
}

/** The authenticator app of a person whose secret (base32) the admin API handed out. */
export const totpOf = (base32: string) => new TOTP({ secret: Secret.fromBase32(base32), algorithm: 'SHA1', digits: 6, period: 30 });

/** Waits, when the current TOTP step ends within 3 s, for the next one, so that a code read now is still valid when posted. */
export async function awayFromStepEnd(): Promise<void> {
  const left = 30_000 - (Date.now() % 30_000);
  if (left < 3_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
}

/** A form of a page: where it posts (undefined: the page's own URL) and its hidden inputs. */
export interface PageForm {
  action: string | undefined;
  hidden: Record<string, string>;
  /** The form's markup, to tell forms apart by what they show. */
  inner: string;
}

/** Every `<form method="post">` of a page. */
export function formsOf(page: string): PageForm[] {
  return [...page.matchAll(/<form method="post"(?: action="([^"]*)")?>([\s\S]*?)<\/form>/g)].map(([, action, inner]) => ({
    action: action === undefined ? undefined : unescape(action),
    hidden: Object.fromEntries([...inner!.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map(([, n, v]) => [unescape(n!), unescape(v!)])),
    inner: inner!,
  }));
}

/** Every `<form` of a page, whatever its method: a page must have no form that is not a post form. */
export const formTagsOf = (page: string): string[] => [...page.matchAll(/<form\b[^>]*>/g)].map(([tag]) => tag);

/** A route of the application, as its route table lists it. */
export interface Route {
  path: string;
  methods: string[];
}

/**
 * The routes of the application, read from Fastify's route table (`printRoutes` with no
 * common prefixes): each line is a path segment below its parent, indented four characters a level.
 */
export function routeTable(app: FastifyInstance): Route[] {
  const routes: Route[] = [];
  const parents: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│ ]*)[├└]── (\S+)(?: \(([A-Z, ]+)\))?$/.exec(line.replace(/\s+$/, ''));
    if (!match) continue;
    const depth = match[1]!.length / 4;
    const path = (parents[depth - 1] ?? '') + match[2]!;
    parents[depth] = path;
    parents.length = depth + 1;
    if (match[3]) routes.push({ path, methods: match[3].split(', ') });
  }
  return routes;
}

/** The Set-Cookie headers of a response. */
export function setCookies(response: LightMyRequestResponse): string[] {
  const raw = response.headers['set-cookie'];
  return raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
}
