import { type SafeHtml, html } from '../pages/html.js';
import type { RequestRealm } from '../realms/resolve.js';
import type { Session } from '../store/sessions.js';

/**
 * Re-authentication before a change to how a person signs in (realm setting
 * `reauthentication_max_age`, CONTRACT.md §5): a session whose sign-in is older changes no
 * credential, so that a browser left signed in, or a stolen session cookie, cannot add a
 * passkey or take away a second factor. The person signs in again and comes back.
 */

/** Whether the session's sign-in is recent enough for a credential change at the realm. */
export function signedInRecently(session: Session, realm: RequestRealm, now = Date.now()): boolean {
  return now - session.authTime.getTime() <= realm.settings.reauthentication_max_age * 1000;
}

/** "5 minutes", "1 hour", "90 seconds": the realm's window as a person reads it. */
export function durationText(seconds: number): string {
  const [amount, unit] = seconds % 3600 === 0 ? [seconds / 3600, 'hour'] : seconds % 60 === 0 ? [seconds / 60, 'minute'] : [seconds, 'second'];
  return `${amount} ${unit}${amount === 1 ? '' : 's'}`;
}

/** What the account page says of an older sign-in. */
export function signInAgainNotice(realm: RequestRealm): SafeHtml {
  return html`<p class="reauthentication">You signed in more than ${durationText(realm.settings.reauthentication_max_age)} ago: to change how you sign in, you will be asked to sign in again first.</p>`;
}
