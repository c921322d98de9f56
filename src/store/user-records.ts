/** A person as the store keeps them: the record the rooms above read, and its row. */

export type Claims = Record<string, unknown>;

export interface User {
  readonly realm: string;
  /** Stable subject identifier (`sub`). */
  readonly id: string;
  readonly username: string;
  readonly passwordHash: string | undefined;
  readonly claims: Claims;
  /** False once an admin disabled the person: they sign in nowhere and are issued nothing (CONTRACT.md §10). */
  readonly enabled: boolean;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/**
 * Whether a statement failed because the address it would give a person is another's
 * (migrations/025_mail_limits_and_unique_emails.sql: one person per address and realm).
 */
export const isEmailTaken = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505' && (error as { constraint?: unknown }).constraint === 'users_email';

export interface UserRow {
  realm: string;
  id: string;
  username: string;
  password_hash: string | null;
  claims: Claims;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

export const USER_COLUMNS = ['realm', 'id', 'username', 'password_hash', 'claims', 'enabled', 'created_at', 'updated_at'] as const;

export const toUser = (row: UserRow): User => ({
  realm: row.realm,
  id: row.id,
  username: row.username,
  passwordHash: row.password_hash ?? undefined,
  claims: row.claims,
  enabled: row.enabled,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});
