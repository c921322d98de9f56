import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { AdminClient } from './app.js';
import { realmPath } from './oauth.js';

/** PKCE (RFC 7636): a verifier and its S256 challenge. */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
/** The text of an HTML attribute or text node, as the pages escape it. */
export const unescape = (text: string) => text.replace(/&(amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity]!);

/** The hidden inputs of the page's form, as a client that reads the form finds them. */
export function hiddenInputs(page: string): Record<string, string> {
  const inputs: Record<string, string> = {};
  for (const [, name, value] of page.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    inputs[unescape(name!)] = unescape(value!);
  }
  return inputs;
}

/** The hidden inputs of the form of a page that posts to `action` (the account page has one form per action). */
export function formFor(page: string, action: string): Record<string, string> {
  for (const [, target, inner] of page.matchAll(/<form method="post" action="([^"]*)">([\s\S]*?)<\/form>/g)) {
    if (unescape(target!) === action) return hiddenInputs(inner!);
  }
  throw new Error(`no form posting to ${action}`);
}

/**
 * A browser driven through `inject`: it keeps cookies by name (paths are not needed to tell
 * them apart here) and follows nothing by itself, so that each step can be checked.
 */
export class TestBrowser {
  readonly cookies = new Map<string, string>();
  /** The address requests come from (inject's default is 127.0.0.1). */
  remoteAddress: string | undefined;
  /** Headers every request carries (an `Accept-Language`), beside the cookies. */
  headers: Record<string, string> = {};

  constructor(
    private readonly app: FastifyInstance,
    private readonly baseUrl: string,
  ) {}

  /** A URL of this server as inject takes it: the path and query only. */
  local(url: string): string {
    return url.startsWith(this.baseUrl) ? url.slice(this.baseUrl.length) : url;
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    return this.keep(await this.app.inject({ method: 'GET', url: this.local(url), headers: this.cookieHeader(), ...this.from() }));
  }

  async post(url: string, form: Record<string, string>): Promise<LightMyRequestResponse> {
    return this.keep(
      await this.app.inject({
        method: 'POST',
        url: this.local(url),
        headers: { ...this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(form).toString(),
        ...this.from(),
      }),
    );
  }

  /** Submits the form of a page, hidden inputs included, at the page's own URL. */
  submit(pageUrl: string, page: LightMyRequestResponse, fields: Record<string, string>): Promise<LightMyRequestResponse> {
    return this.post(pageUrl, { ...hiddenInputs(page.body), ...fields });
  }

  private from(): { remoteAddress?: string } {
    return this.remoteAddress === undefined ? {} : { remoteAddress: this.remoteAddress };
  }

  private cookieHeader(): Record<string, string> {
    if (this.cookies.size === 0) return { ...this.headers };
    return { ...this.headers, cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
  }

  private keep(response: LightMyRequestResponse): LightMyRequestResponse {
    for (const cookie of response.cookies as Array<{ name: string; value: string; maxAge?: number; expires?: Date }>) {
      const expired = cookie.maxAge === 0 || (cookie.expires !== undefined && cookie.expires.getTime() <= Date.now()) || cookie.value === '';
      if (expired) this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
    return response;
  }
}

export function location(response: LightMyRequestResponse): string {
  const value = response.headers.location;
  if (typeof value !== 'string') throw new Error(`expected a redirect, got ${response.statusCode}: ${response.body.slice(0, 300)}`);
  return value;
}

/** The query of the redirect back to the client. */
export function redirectParams(response: LightMyRequestResponse): URLSearchParams {
  return new URL(location(response)).searchParams;
}

export const REDIRECT_URI = 'https://app.example/callback';

/** A realm user and a client of the code flow, with the scopes they need. */
export async function codeFlowSetup(
  admin: AdminClient,
  realm: string,
  options: { client?: Record<string, unknown>; scopes?: string[]; username?: string; password?: string; claims?: Record<string, unknown> } = {},
) {
  for (const scope of options.scopes ?? []) await admin.putScope(realm, scope);
  const username = options.username ?? 'alice';
  const password = options.password ?? 'correct horse battery';
  const created = await admin.request('POST', `/realms/${realm}/users`, { username, password, claims: options.claims ?? {} });
  if (created.statusCode !== 201 && created.statusCode !== 409) throw new Error(`user: ${created.statusCode} ${created.body}`);
  const client = await admin.createClient(realm, {
    client_type: 'public',
    redirect_uris: [REDIRECT_URI],
    grant_types: ['authorization_code', 'refresh_token'],
    scope: ['openid', 'profile', 'email', ...(options.scopes ?? [])].join(' '),
    ...options.client,
  });
  return { clientId: client.client_id, secret: client.client_secret, username, password };
}

export interface CodeFlowResult {
  code: string;
  state: string | null;
  iss: string | null;
  verifier: string;
  final: LightMyRequestResponse;
}

/**
 * The whole browser side of the code flow: /authorize, the sign-in page, the consent page
 * when shown, and the redirect back with the code.
 */
export async function obtainCode(
  browser: TestBrowser,
  realm: string,
  input: { clientId: string; username: string; password: string; params?: Record<string, string>; redirectUri?: string },
): Promise<CodeFlowResult> {
  const { verifier, challenge } = pkce();
  const query = new URLSearchParams({
    client_id: input.clientId,
    response_type: 'code',
    redirect_uri: input.redirectUri ?? REDIRECT_URI,
    scope: 'openid profile',
    state: 'state-123',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...input.params,
  });
  let response = await browser.get(`${realmPath(realm)}/authorize?${query}`);
  for (let step = 0; step < 4; step++) {
    const next = location(response);
    const path = new URL(next, 'http://x').pathname;
    if (path.endsWith('/login')) {
      const page = await browser.get(next);
      response = await browser.submit(next, page, { username: input.username, password: input.password });
    } else if (path.endsWith('/consent')) {
      const page = await browser.get(next);
      response = await browser.submit(next, page, { decision: 'allow' });
    } else {
      const params = new URL(next).searchParams;
      const code = params.get('code');
      if (!code) throw new Error(`no code in ${next}`);
      return { code, state: params.get('state'), iss: params.get('iss'), verifier, final: response };
    }
  }
  throw new Error('the flow did not end');
}
