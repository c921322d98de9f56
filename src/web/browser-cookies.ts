import { createHmac, timingSafeEqual } from 'node:crypto';
import type {} from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RequestRealm } from '../records/realm.js';
import { randomSecret, sha256 } from '../secrets.js';

/** Browsers cap cookie lifetimes at 400 days. */
const DEVICE_COOKIE_SECONDS = 400 * 24 * 3600;

/**
 * The cookies of a person's browser at one realm, all signed, HttpOnly, SameSite=Lax, and
 * Secure when BASE_URL is https; and the CSRF tokens of the forms derived from them.
 *
 * - `rg_session_<realm>`: the secret of the person's session (stored as SHA-256).
 * - `rg_browser_<realm>`: a random binding: an authorization transaction continues only in
 *   the browser that began it, and a form's CSRF token is an HMAC of this binding, so that
 *   another site can neither read nor forge it (OWASP's signed double-submit cookie).
 *
 * - `rg_device_<realm>`: a long-lived id of the device, for the risk step.
 *
 * Names carry the realm because the root realm's path, /oauth2, is a prefix of the others.
 */
export class BrowserCookies {
  constructor(
    private readonly csrfKey: Buffer,
    private readonly secure: boolean,
  ) {}

  sessionSecret(request: FastifyRequest, realm: RequestRealm): string | undefined {
    return this.read(request, `rg_session_${realm.name}`);
  }

  setSession(reply: FastifyReply, realm: RequestRealm, secret: string, lifetimeSeconds: number): void {
    reply.setCookie(`rg_session_${realm.name}`, secret, { ...this.options(realm), maxAge: lifetimeSeconds });
  }

  /**
   * `rg_device_<realm>`: a long-lived random id of the browser, which the risk step knows a
   * person's devices by (as SHA-256, hex); set when it has none.
   */
  device(request: FastifyRequest, reply: FastifyReply, realm: RequestRealm): string {
    let device = this.read(request, `rg_device_${realm.name}`);
    if (!device) {
      device = randomSecret();
      reply.setCookie(`rg_device_${realm.name}`, device, { ...this.options(realm), maxAge: DEVICE_COOKIE_SECONDS });
    }
    return sha256(device).toString('hex');
  }

  clearSession(reply: FastifyReply, realm: RequestRealm): void {
    reply.clearCookie(`rg_session_${realm.name}`, this.options(realm));
  }

  /** The SHA-256 of the browser's binding, which is set when it has none. */
  bindBrowser(request: FastifyRequest, reply: FastifyReply, realm: RequestRealm): Buffer {
    let binding = this.read(request, `rg_browser_${realm.name}`);
    if (!binding) {
      binding = randomSecret();
      reply.setCookie(`rg_browser_${realm.name}`, binding, this.options(realm));
    }
    return sha256(binding);
  }

  /** The SHA-256 of the browser's binding, if it has one. */
  browserHash(request: FastifyRequest, realm: RequestRealm): Buffer | undefined {
    const binding = this.read(request, `rg_browser_${realm.name}`);
    return binding === undefined ? undefined : sha256(binding);
  }

  /** The CSRF token of a form about `subject` (a transaction, or the sign-out form). */
  csrfToken(browserHash: Buffer, subject: string): string {
    return createHmac('sha256', this.csrfKey).update(browserHash).update('\0').update(subject).digest('base64url');
  }

  /**
   * A MAC of a text the server puts in a URL for its own page to show (a notice after an
   * action), so that a link from elsewhere cannot make the page say something else.
   */
  textMac(text: string): string {
    return createHmac('sha256', this.csrfKey).update('text\0').update(text).digest('base64url');
  }

  textMacMatches(text: string, mac: string | undefined): boolean {
    if (mac === undefined) return false;
    const expected = Buffer.from(this.textMac(text));
    const given = Buffer.from(mac);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  csrfTokenMatches(request: FastifyRequest, realm: RequestRealm, subject: string, presented: string | undefined): boolean {
    const browserHash = this.browserHash(request, realm);
    if (!browserHash || presented === undefined) return false;
    const expected = Buffer.from(this.csrfToken(browserHash, subject));
    const given = Buffer.from(presented);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private read(request: FastifyRequest, name: string): string | undefined {
    const raw = request.cookies[name];
    if (raw === undefined) return undefined;
    const unsigned = request.unsignCookie(raw);
    return unsigned.valid && unsigned.value ? unsigned.value : undefined;
  }

  private options(realm: RequestRealm) {
    return { path: new URL(realm.issuer).pathname, httpOnly: true, sameSite: 'lax', secure: this.secure, signed: true } as const;
  }
}
