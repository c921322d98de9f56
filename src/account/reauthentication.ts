import type { RequestRealm } from '../records/realm.js';
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
