import type { NewAuditEvent } from '../store/audit-events.js';

/**
 * The audit trail (issue 8): what happened to tokens, sign-ins, consents, clients and realms,
 * as one structured log line and one `audit_events` row per event.
 */
export const AUDIT_EVENT_TYPES = [
  'token.issued',
  'token.revoked',
  'id_jag.issued',
  'transaction_token.issued',
  'sign_in.succeeded',
  'sign_in.failed',
  'consent.granted',
  'consent.denied',
  'consent.revoked',
  'client.created',
  'client.updated',
  'client.deleted',
  'client.secret_rotated',
  'realm.created',
  'realm.updated',
  'realm.deleted',
  'realm.imported',
  'realm.exported',
  'user.created',
  'user.updated',
  'user.deleted',
  'user.totp_enrolled',
  'user.totp_removed',
  'user.passkey_registered',
  'user.passkey_deleted',
  'user.recovery_codes_generated',
  'user.registered',
  'user.email_verified',
  'user.password_reset',
  'user.password_changed',
  'user.disabled',
  'user.enabled',
  'user.sessions_ended',
  'scope.saved',
  'scope.deleted',
  'keys.rotated',
  'trusted_issuer.created',
  'trusted_issuer.updated',
  'trusted_issuer.deleted',
  'initial_access_token.created',
  'journey.saved',
  'journey.deleted',
  'identity_provider.created',
  'identity_provider.updated',
  'identity_provider.deleted',
  'identity.linked',
  'identity.unlinked',
  'role.saved',
  'role.deleted',
  'group.saved',
  'group.deleted',
  'user.role_granted',
  'user.role_revoked',
  'user.group_joined',
  'user.group_left',
  'resource.saved',
  'resource.deleted',
  'user.password_reset_sent',
  'user.verification_sent',
  'webhook.saved',
  'webhook.deleted',
] as const;

export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

export interface AuditEvent {
  realm: string;
  type: AuditEventType;
  /** The client concerned, if any. */
  clientId?: string | undefined;
  /** The person concerned (a user's id), if any. */
  userId?: string | undefined;
  /** Who caused it: the request's address. */
  address?: string | undefined;
  /** What else tells the event apart (grant type, scope, reason…); never a secret. */
  details?: Readonly<Record<string, unknown>>;
}

/** An event whose row the caller writes in the statement that makes it happen (src/tokens/issuer.ts). */
export interface PreparedAuditEvent {
  row: NewAuditEvent;
  /** Writes its log line: once the row is committed. */
  committed(): void;
}

/** Records events; recording never fails the request that caused the event. */
export interface AuditLog {
  /** `lifetime`: the realm's `audit_event_lifetime` in seconds, when the caller has its settings at hand (else it is looked up). */
  record(event: AuditEvent, lifetime?: number): void;
  /** The event as a row for the caller to write, given its realm's `audit_event_lifetime` in seconds. */
  prepare(event: AuditEvent, lifetime: number): PreparedAuditEvent;
}
