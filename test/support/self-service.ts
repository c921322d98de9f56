import { Writable } from 'node:stream';
import type { LightMyRequestResponse } from 'fastify';
import { decodeJwt } from 'jose';
import { expect } from 'vitest';
import { createLogger } from '../../src/logger.js';
import type { TestApp } from './app.js';
import { authorize, codeRequest, expectCode, freshRealm, issuerOf } from './flow-helpers.js';
import { REDIRECT_URI, type TestBrowser, location, pkce, unescape } from './flow.js';
import type { ReceivedMail } from './mail.js';
import { postForm, realmPath } from './oauth.js';

/** A password no realm's policy refuses (long, not a common one). */
export const GOOD_PASSWORD = 'violet-lantern-93-orbit';

/** A realm whose people manage themselves as `settings` say, and a public client of the code flow that skips consent. */
export async function selfServiceRealm(t: TestApp, settings: Record<string, unknown>, client: Record<string, unknown> = {}) {
  const realm = await freshRealm(t, { allow_consent_bypass: true, ...settings });
  const created = await t.admin.createClient(realm, {
    client_type: 'public',
    redirect_uris: [REDIRECT_URI],
    grant_types: ['authorization_code', 'refresh_token'],
    scope: 'openid profile email',
    skip_consent: true,
    ...client,
  });
  return { realm, clientId: created.client_id };
}

/** The link to `path` (`/verify`, `/reset`) that a mail's text holds. */
export function linkIn(mail: ReceivedMail, path: string): string {
  const link = new RegExp(`(https?://\\S+${path}\\?ticket=[A-Za-z0-9_%-]+)`).exec(mail.text)?.[1];
  if (!link) throw new Error(`no ${path} link in: ${mail.text}`);
  return link;
}

/** The `href` of the page's first link whose target contains `part`. */
export function hrefWith(page: string, part: string): string | undefined {
  const href = [...page.matchAll(/<a href="([^"]*)"/g)].map(([, value]) => unescape(value!)).find((value) => value.includes(part));
  return href;
}

/** A sign-in begun at /authorize for the client: the sign-in page's URL and the PKCE verifier. */
export async function beginSignIn(browser: TestBrowser, realm: string, clientId: string): Promise<{ loginUrl: string; verifier: string }> {
  const { verifier, challenge } = pkce();
  const response = await authorize(browser, realm, codeRequest(clientId, { code_challenge: challenge, scope: 'openid profile email' }));
  expect(response.statusCode, response.body.slice(0, 300)).toBe(303);
  return { loginUrl: location(response), verifier };
}

/** The redirect back to the client with a code, exchanged: the ID token's claims and the tokens. */
export async function exchangeCode(t: TestApp, realm: string, clientId: string, response: LightMyRequestResponse, verifier: string) {
  const code = expectCode(response, { iss: issuerOf(realm) });
  const tokens = await postForm(t.app, `${realmPath(realm)}/access_token`, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT_URI,
    code_verifier: verifier,
    client_id: clientId,
  });
  expect(tokens.statusCode, tokens.body).toBe(200);
  const body = tokens.json() as { access_token: string; refresh_token: string; id_token: string };
  return { ...body, claims: decodeJwt(body.id_token) };
}

/** The realm's audit events of one type, newest first. */
export async function eventsOf(t: TestApp, realm: string, type: string): Promise<Array<{ user_id: string | null; details: Record<string, unknown> }>> {
  return (await t.admin.request('GET', `/realms/${realm}/events?type=${type}`)).json().events;
}

/** The text of the page's error box, if any. */
export const errorOf = (page: string): string | undefined => /<p class="error" role="alert">([^<]*)<\/p>/.exec(page)?.[1];
/** The text of the page's notice, if any. */
export const noticeOf = (page: string): string | undefined => /<p class="notice" role="status">([^<]*)<\/p>/.exec(page)?.[1];

/**
 * The production logger at its most verbose, writing to memory, and the secrets a test saw
 * cross the wire (passwords typed, tickets of mailed links): none may be in the log.
 */
export function capturedLog() {
  const lines: string[] = [];
  const secrets = new Set<string>();
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return {
    logger: createLogger('trace', sink),
    /** A secret to look for; a link's ticket is looked for as it is and as the link carries it. */
    keep(secret: string): string {
      secrets.add(secret);
      const ticket = /[?&]ticket=([^&]+)/.exec(secret)?.[1];
      if (ticket) {
        secrets.add(ticket);
        secrets.add(decodeURIComponent(ticket));
      }
      return secret;
    },
    /** The lines written so far, each parsed (the logger writes JSON, one object a line). */
    entries(): Record<string, unknown>[] {
      return lines.flatMap((text) => text.split('\n')).filter((text) => text !== '').map((text) => JSON.parse(text) as Record<string, unknown>);
    },
    expectNoSecrets(): void {
      expect(lines.length).toBeGreaterThan(0);
      const log = lines.join('');
      for (const secret of secrets) expect(log.includes(secret), `the log holds ${secret.slice(0, 6)}…`).toBe(false);
    },
  };
}
