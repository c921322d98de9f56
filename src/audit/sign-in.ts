import type { AuditEvent, AuditLog } from './audit-log.js';

/** Where a sign-in is attempted: the sign-in page, or the password grant of a client. */
export interface SignInAttempt {
  realm: string;
  address: string;
  via: 'sign_in_page' | 'password_grant';
  /** The client the person signs in for, if any. */
  clientId?: string | undefined;
}

export interface SignInFailure {
  /** The node type that refused (src/authn/nodes/), or the node at which the journey denied or the attempt was refused unchecked. */
  step: string;
  /** As typed: the account may not exist. */
  username: string | undefined;
  /** Known once an earlier step identified the person. */
  userId?: string | undefined;
  /** `locked`: refused unchecked, after too many failures (src/authn/brute-force.ts). */
  /** `denied`: the journey ended at `deny` (CONTRACT.md §8), or an upstream provider refused the person. */
  /** `upstream_failed`: a sign-in through an upstream provider failed (src/web/broker.ts). */
  /** `disabled`: the person's credentials passed, but an admin disabled them (CONTRACT.md §10). */
  reason: 'wrong_credentials' | 'locked' | 'denied' | 'upstream_failed' | 'disabled' | 'password_changed';
}

/** `sign_in.succeeded`: the sign-in page writes it with the session (src/web/authorization-flow.ts). */
export function signInSucceeded(attempt: SignInAttempt, signedIn: { userId: string; amr: readonly string[] }): AuditEvent {
  return {
    realm: attempt.realm,
    type: 'sign_in.succeeded',
    clientId: attempt.clientId,
    userId: signedIn.userId,
    address: attempt.address,
    details: { via: attempt.via, amr: signedIn.amr },
  };
}

export function recordSignInSucceeded(audit: AuditLog, attempt: SignInAttempt, signedIn: { userId: string; amr: readonly string[] }): void {
  audit.record(signInSucceeded(attempt, signedIn));
}

export function recordSignInFailed(audit: AuditLog, attempt: SignInAttempt, failure: SignInFailure): void {
  audit.record({
    realm: attempt.realm,
    type: 'sign_in.failed',
    clientId: attempt.clientId,
    userId: failure.userId,
    address: attempt.address,
    details: { via: attempt.via, step: failure.step, username: failure.username, reason: failure.reason },
  });
}
