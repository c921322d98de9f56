/**
 * The admin console's session module: signing in through the `root` realm (CONTRACT.md §14) as
 * the public client `realmgate-console`, with the code flow and PKCE (RFC 7636, S256). The tokens
 * are kept in this module's memory only: a reload signs in again (the realm's own session makes
 * that a redirect there and back). The access token is refreshed before it expires; signing out
 * revokes the refresh token (RFC 7009), then ends the realm's session (OpenID Connect
 * RP-Initiated Logout). Only the PKCE verifier and state live in sessionStorage, from the redirect
 * to the realm until its answer, as they must outlive the page that leaves.
 */

import { consoleLocale, t } from './i18n.js';

const CLIENT_ID = 'realmgate-console';
/** The root realm's issuer, `{BASE_URL}/oauth2` (CONTRACT.md §2). */
const ISSUER_PATH = '/oauth2';
const PENDING_KEY = 'realmgate.console_sign_in';
/** Refreshed this long before the access token expires. */
const REFRESH_MARGIN_SECONDS = 30;

interface TokenAnswer {
  access_token: string;
  expires_in?: number;
  refresh_token?: string;
  id_token?: string;
}

interface Session {
  accessToken: string;
  refreshToken?: string;
  idToken?: string;
  timer?: ReturnType<typeof setTimeout>;
}

let session: Session | undefined;

const consolePath = '/admin/console';
const redirectUri = (): string => location.origin + consolePath + '/callback';
/** The admin API as a resource of root (RFC 8707): the audience of the console's tokens. */
const adminResource = (): string => location.origin + '/admin';

function base64url(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

const randomText = (): string => base64url(crypto.getRandomValues(new Uint8Array(32)));

async function challengeOf(verifier: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
}

/** The access token of the signed-in person, if any. */
export const sessionToken = (): string | undefined => session?.accessToken;

/** Who is signed in, from the ID token's claims (read, not verified: it came from the token endpoint over this origin). */
export function signedInAs(): string | undefined {
  const payload = session?.idToken?.split('.')[1];
  if (!payload) return undefined;
  try {
    const claims = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as Record<string, unknown>;
    const name = claims.preferred_username ?? claims.sub;
    return typeof name === 'string' ? name : undefined;
  } catch {
    return undefined;
  }
}

/** Leaves for the realm's sign-in page. */
export async function signIn(): Promise<void> {
  const verifier = randomText();
  const state = randomText();
  sessionStorage.setItem(PENDING_KEY, JSON.stringify({ verifier, state }));
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: CLIENT_ID,
    redirect_uri: redirectUri(),
    scope: 'openid',
    state,
    code_challenge: await challengeOf(verifier),
    code_challenge_method: 'S256',
    resource: adminResource(),
    // The root realm's sign-in page in the console's language (CONTRACT.md §16).
    ui_locales: consoleLocale(),
  });
  location.assign(ISSUER_PATH + '/authorize?' + query);
}

async function tokenCall(form: Record<string, string>): Promise<TokenAnswer> {
  const response = await fetch(ISSUER_PATH + '/access_token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ client_id: CLIENT_ID, ...form }),
    cache: 'no-store',
    credentials: 'omit',
    redirect: 'error',
  });
  const answer = (await response.json().catch(() => ({}))) as Partial<TokenAnswer> & { error?: string; error_description?: string };
  if (!response.ok || typeof answer.access_token !== 'string') {
    const reason = answer.error_description ?? answer.error ?? t('the server answered {status}', { status: response.status });
    throw new Error(t('The sign-in was refused: {reason}.', { reason }));
  }
  return answer as TokenAnswer;
}

function keep(answer: TokenAnswer, onExpired: () => void): void {
  if (session?.timer !== undefined) clearTimeout(session.timer);
  session = {
    accessToken: answer.access_token,
    refreshToken: answer.refresh_token ?? session?.refreshToken,
    idToken: answer.id_token ?? session?.idToken,
  };
  const lifetime = answer.expires_in ?? 0;
  if (lifetime > 0 && session.refreshToken) {
    session.timer = setTimeout(() => void refresh(onExpired), Math.max(lifetime - REFRESH_MARGIN_SECONDS, lifetime / 2) * 1000);
  }
}

async function refresh(onExpired: () => void): Promise<void> {
  const refreshToken = session?.refreshToken;
  if (!refreshToken) return;
  try {
    keep(await tokenCall({ grant_type: 'refresh_token', refresh_token: refreshToken }), onExpired);
  } catch {
    session = undefined;
    onExpired();
  }
}

/**
 * On the callback page: the realm's answer taken out of the URL (and out of the history), its
 * state checked against the one this tab sent, the code exchanged with the verifier. Answers
 * whether this page was a callback; throws what went wrong.
 */
export async function completeSignIn(onExpired: () => void): Promise<boolean> {
  if (location.pathname !== consolePath + '/callback') return false;
  const answer = new URLSearchParams(location.search);
  history.replaceState(null, '', consolePath);
  const pending = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  const { verifier, state } = (pending ? JSON.parse(pending) : {}) as { verifier?: string; state?: string };
  if (!verifier || !state || answer.get('state') !== state) throw new Error(t('This sign-in was not started here, or was already used: sign in again.'));
  const error = answer.get('error');
  if (error) throw new Error(t('The sign-in was refused: {reason}.', { reason: answer.get('error_description') ?? error }));
  const code = answer.get('code');
  if (!code) throw new Error(t('The realm answered no code: sign in again.'));
  keep(await tokenCall({ grant_type: 'authorization_code', code, redirect_uri: redirectUri(), code_verifier: verifier }), onExpired);
  return true;
}

/** Forgets the tokens, revokes the refresh token, and leaves to end the realm's session. */
export async function signOut(): Promise<void> {
  const ended = session;
  session = undefined;
  if (!ended) return;
  if (ended.timer !== undefined) clearTimeout(ended.timer);
  for (const token of [ended.refreshToken, ended.accessToken]) {
    if (!token) continue;
    await fetch(ISSUER_PATH + '/token/revoke', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: CLIENT_ID, token }),
      cache: 'no-store',
      credentials: 'omit',
      redirect: 'error',
    }).catch(() => undefined);
  }
  const query = new URLSearchParams({ client_id: CLIENT_ID, post_logout_redirect_uri: location.origin + consolePath });
  if (ended.idToken) query.set('id_token_hint', ended.idToken);
  location.assign(ISSUER_PATH + '/connect/endSession?' + query);
}

/** Forgets the tokens without a word to the realm (they were refused). */
export function forgetSession(): void {
  if (session?.timer !== undefined) clearTimeout(session.timer);
  session = undefined;
}
