import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthorizationFlow } from '../web/authorization-flow.js';
import type { BrowserCookies } from '../web/browser-cookies.js';
import type { AccountSubpage } from '../pages/account/page.js';
import type { SafeHtml } from '../pages/html.js';
import type { Locale, Messages, Text } from '../pages/i18n/index.js';
import type { RequestRealm } from '../records/realm.js';
import type { Store } from '../store/index.js';
import type { Session } from '../store/sessions.js';
import type { KeyEncryption } from '../tokens/key-encryption.js';

/** The signed-in person the account page is about. */
export interface AccountHolder {
  readonly realm: RequestRealm;
  readonly session: Session;
  readonly userId: string;
  readonly username: string;
  /** Whether the sign-in is recent enough to change how the person signs in (src/account/reauthentication.ts). */
  readonly recentSignIn: boolean;
  /** The CSRF token of a form of the account page about `subject` (a section's action). */
  csrf(subject: string): string;
  /** The language of the page answered: its templates' and notices' words. */
  readonly t: Messages;
  /** The page's language, which its mails go out in too. */
  readonly locale: Locale;
  /** The client's address, as limits count it. */
  readonly address: string;
}

/** A section's part of the account page. */
export interface AccountSectionView {
  /** Rendered by the section's template in src/pages/account/; undefined leaves the section out (nothing of it at this realm). */
  readonly body: SafeHtml | undefined;
  /** Same-origin scripts the section needs (passkeys); the rest of the page works without JavaScript. */
  readonly scripts?: readonly string[];
  /** Where the section's forms lead beyond the realm (an upstream provider): the page's CSP form-action. */
  readonly formTargets?: readonly string[];
}

/** What the account page gives its sections to handle their own requests. */
export interface AccountTools {
  readonly store: Store;
  readonly flow: AuthorizationFlow;
  readonly cookies: BrowserCookies;
  readonly encryption: KeyEncryption;
  readonly baseUrl: string;
  /**
   * The signed-in person of a request whose form carries the CSRF token of `subject`; throws
   * InvalidFormError when the token is wrong. Without a session, it answers a redirect to the
   * account page (which signs the person in) and resolves to undefined.
   */
  holder(request: FastifyRequest, reply: FastifyReply, subject: string, csrf: string | undefined): Promise<AccountHolder | undefined>;
  /**
   * As `holder`, for a request that changes how the person signs in (a passkey, the
   * authenticator app, recovery codes): a session whose sign-in is older than the realm's
   * `reauthentication_max_age` changes nothing and is answered with the way to sign in
   * again (back to the account page after it); this then resolves to undefined.
   */
  credentialHolder(request: FastifyRequest, reply: FastifyReply, subject: string, csrf: string | undefined): Promise<AccountHolder | undefined>;
  /** Back to the account page, which shows `notice` at its top. */
  backToAccount(reply: FastifyReply, realm: RequestRealm, notice: string): FastifyReply;
  /** A page of its own, for what is shown once (a secret, recovery codes) or asked for (a first code). */
  sendAccountPage(reply: FastifyReply, realm: RequestRealm, page: AccountSubpage): FastifyReply;
}

/**
 * One part of the account page (`{issuer}/account`): what the person sees of one concern,
 * and the routes below `/account/…` that change it. Every form carries a CSRF token bound to
 * the browser and to its action.
 */
export interface AccountSection {
  /** The heading of the section. */
  readonly title: Text;
  render(holder: AccountHolder): Promise<AccountSectionView>;
  /** Registers the section's routes (POST forms, or JSON for WebAuthn ceremonies). */
  routes?(app: FastifyInstance, tools: AccountTools): void;
}
