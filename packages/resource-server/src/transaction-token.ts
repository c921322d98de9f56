import type { FastifyReply, FastifyRequest } from 'fastify';
import { type JWTVerifyGetKey, errors, jwtVerify } from 'jose';
import { AuthorizationServerUnavailable } from './errors.js';
import type { Settings } from './options.js';

/** draft-ietf-oauth-transaction-tokens §6.1: the `typ` of a transaction token; an access token or any other JWT is refused. */
const TXN_TOKEN_TYP = 'txntoken+jwt';
/** Its §10.1: the header that carries it, never `Authorization`. */
export const TXN_TOKEN_HEADER = 'txn-token';
/** Its §6.2: the claims every transaction token carries (realmgate's always name their `iss`). */
const REQUIRED_CLAIMS = ['iss', 'iat', 'aud', 'exp', 'txn', 'sub', 'scope'];
/** A larger header is no transaction token of realmgate's. */
const MAX_LENGTH = 16_384;

/** What a service knows of a verified transaction token (`request.transaction`). */
export interface TransactionTokenClaims {
  iss: string;
  /** The trust domain. */
  aud: string | string[];
  iat: number;
  exp: number;
  /** The transaction, the same in every service of its call chain. */
  txn: string;
  /** The person (or the service) the transaction is for. */
  sub: string;
  /** The purpose, space-separated. */
  scope: string;
  /** The workload that asked for it. */
  req_wl?: string;
  /** The transaction's immutable context, and the request's. */
  tctx?: Record<string, unknown>;
  rctx?: Record<string, unknown>;
  [claim: string]: unknown;
}

/** Why a request's transaction token was refused: 401 (none, or not valid) or 403 (a purpose that does not cover the route). */
export class TransactionTokenError extends Error {
  constructor(
    readonly status: 401 | 403,
    readonly code: 'invalid_token' | 'insufficient_scope',
    description: string,
  ) {
    super(description);
    this.name = 'TransactionTokenError';
  }
}

/**
 * Verifies the `Txn-Token` header of a request inside the trust domain (its §10.2): exactly one
 * JWS, `typ: txntoken+jwt`, signed by one of the issuer's keys (the same key set as its JWT
 * access tokens), from the issuer, for the trust domain (`aud`), not expired, with every claim of
 * its §6.2; and a purpose (`scope`) that holds each scope the route needs.
 */
export async function verifyTransactionToken(
  request: FastifyRequest,
  settings: Settings,
  trustDomain: string,
  keys: () => Promise<JWTVerifyGetKey>,
  purpose: readonly string[],
): Promise<TransactionTokenClaims> {
  const header = request.headers[TXN_TOKEN_HEADER];
  if (header === undefined) throw new TransactionTokenError(401, 'invalid_token', 'a Txn-Token header is required');
  // Node joins a repeated header with ", ": a JWS holds no comma, so two of them are refused here.
  if (typeof header !== 'string' || header.length > MAX_LENGTH || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(header)) {
    throw new TransactionTokenError(401, 'invalid_token', 'the Txn-Token header must hold exactly one transaction token');
  }
  let claims: TransactionTokenClaims;
  try {
    const { payload } = await jwtVerify(header, await keys(), {
      issuer: settings.issuer,
      audience: trustDomain,
      typ: TXN_TOKEN_TYP,
      clockTolerance: settings.clockToleranceSeconds,
      requiredClaims: REQUIRED_CLAIMS,
    });
    claims = payload as TransactionTokenClaims;
  } catch (error) {
    throw refusal(error);
  }
  if (typeof claims.scope !== 'string' || typeof claims.txn !== 'string' || typeof claims.sub !== 'string') {
    throw new TransactionTokenError(401, 'invalid_token', 'the transaction token lacks txn, sub or scope');
  }
  const granted = new Set(claims.scope.split(' '));
  if (!purpose.every((scope) => granted.has(scope))) {
    throw new TransactionTokenError(403, 'insufficient_scope', `the transaction's purpose does not cover: ${purpose.join(' ')}`);
  }
  return claims;
}

export function sendTransactionTokenError(reply: FastifyReply, error: TransactionTokenError): FastifyReply {
  return reply.code(error.status).header('cache-control', 'no-store').send({ error: error.code, error_description: error.message });
}

function refusal(error: unknown): Error {
  if (error instanceof errors.JWTExpired) return new TransactionTokenError(401, 'invalid_token', 'the transaction token has expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    const why =
      error.claim === 'aud'
        ? 'it is not for this trust domain (aud)'
        : error.claim === 'typ'
          ? 'it is not a transaction token (typ must be txntoken+jwt)'
          : error.claim === 'iss'
            ? 'it is from another issuer'
            : `its ${error.claim} claim is ${error.reason === 'missing' ? 'missing' : 'invalid'}`;
    return new TransactionTokenError(401, 'invalid_token', `the transaction token is refused: ${why}`);
  }
  const unverified =
    error instanceof errors.JWKSNoMatchingKey ||
    error instanceof errors.JWSSignatureVerificationFailed ||
    error instanceof errors.JWSInvalid ||
    error instanceof errors.JWTInvalid ||
    error instanceof errors.JOSEAlgNotAllowed ||
    error instanceof errors.JOSENotSupported ||
    error instanceof errors.JWKSMultipleMatchingKeys;
  if (unverified) return new TransactionTokenError(401, 'invalid_token', 'the transaction token is not signed by the issuer');
  if (error instanceof AuthorizationServerUnavailable) return error;
  return new AuthorizationServerUnavailable(`the key set could not be read: ${(error as Error).message}`, { cause: error });
}
