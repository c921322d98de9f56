import { BearerError } from './errors.js';

/**
 * What the API knows of a verified token (`request.token`): the JWT's claims (RFC 9068 §2.2),
 * or the introspection answer (RFC 7662 §2.2) without `active`. realmgate's names.
 */
export interface AccessTokenClaims {
  iss?: string;
  /** The person's id, or the client's when no person is behind the token. */
  sub?: string;
  aud?: string | string[];
  /** Seconds since the epoch. */
  exp?: number;
  iat?: number;
  nbf?: number;
  jti?: string;
  client_id?: string;
  /** Space-separated scopes. */
  scope?: string;
  /** Introspection only: the person's username. */
  username?: string;
  auth_time?: number;
  sid?: string;
  /** RFC 8705 §3.1 and RFC 9449 §6: the thumbprint of the client certificate or DPoP key the token is bound to. */
  cnf?: { 'x5t#S256'?: string; jkt?: string };
  /** RFC 8693 §4.1: who acts for the subject. */
  act?: { sub: string; act?: unknown };
  /** RFC 9396 §9: the authorization details granted, as issued (read them with `authorizationDetailsOf`). */
  authorization_details?: unknown;
  [claim: string]: unknown;
}

/** RFC 9396 §2: one granted entry of `authorization_details`; its other fields are as its type's schema at the server says. */
export interface AuthorizationDetail {
  type: string;
  [field: string]: unknown;
}

/**
 * RFC 9396 §9: the authorization details a verified token grants, those of `type` when given:
 * each an object with a string `type`, anything else left out. None granted: an empty list,
 * so that a route that needs a payment's details finds none rather than guessing.
 */
export function authorizationDetailsOf(claims: AccessTokenClaims | null | undefined, type?: string): AuthorizationDetail[] {
  const granted = claims?.authorization_details;
  if (!Array.isArray(granted)) return [];
  return granted.filter(
    (entry): entry is AuthorizationDetail =>
      typeof entry === 'object' && entry !== null && !Array.isArray(entry) && typeof entry.type === 'string' && (type === undefined || entry.type === type),
  );
}

/** A token's scopes: its `scope` claim, split on spaces. */
export function scopesOf(claims: AccessTokenClaims): Set<string> {
  return new Set(typeof claims.scope === 'string' ? claims.scope.split(' ').filter(Boolean) : []);
}

/** RFC 6750 §3.1 `insufficient_scope` unless the token has every scope the route needs. */
export function requireScopes(claims: AccessTokenClaims, required: readonly string[]): void {
  if (required.length === 0) return;
  const granted = scopesOf(claims);
  if (!required.every((scope) => granted.has(scope))) {
    throw new BearerError('insufficient_scope', `the token lacks the scope this needs: ${required.join(' ')}`, required.join(' '));
  }
}

/** Whether `aud` (a string, a list, or absent: the issuer) names one of the accepted audiences. */
export function audienceMatches(aud: unknown, issuer: string, accepted: readonly string[]): boolean {
  const named = aud === undefined ? [issuer] : typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
  return named.some((value) => typeof value === 'string' && accepted.includes(value));
}
