import { AuthorizationResponseError, ClientError, ResponseBodyError } from 'openid-client';
import { OAuthError } from '../errors.js';
import { OutboundError } from '../http/outbound-fetch.js';

/** Why a sign-in through an upstream provider did not go on. */
export type UpstreamFailureKind =
  /** The provider could not be reached, or its discovery document or keys could not be read. */
  | 'unreachable'
  /** The person cancelled at the provider, or the provider refused them (`error=access_denied`). */
  | 'denied'
  /** The provider answered with another error, or an answer that failed verification (signature, issuer, nonce…). */
  | 'invalid_answer'
  /** The callback's `state` is unknown, expired or used already. */
  | 'unknown_state'
  /** The provider is not (or no longer) one of the realm's. */
  | 'unknown_provider';

/**
 * A sign-in through an upstream provider that ends on a page saying what happened, in plain
 * words of the page's language (the catalogue's `upstream` texts, by kind and provider name;
 * CONTRACT.md §4: nothing internal is shown). `cause` is for the log only.
 */
export class UpstreamFailure extends Error {
  override name = 'UpstreamFailure';
  constructor(
    readonly kind: UpstreamFailureKind,
    readonly providerName: string,
    options?: { cause?: unknown },
  ) {
    super(`sign-in through an upstream provider failed: ${kind}`, options);
  }

  /** 400 for what the browser brought, 403 for a refusal, 502 for what the provider did. */
  get status(): number {
    if (this.kind === 'denied') return 403;
    return this.kind === 'unknown_state' || this.kind === 'unknown_provider' ? 400 : 502;
  }
}

/**
 * The failure an error of openid-client or of the outbound fetcher stands for: a refusal the
 * provider sent back to the callback, an answer that could not be read or verified, or no
 * answer at all.
 */
export function upstreamFailureOf(error: unknown, providerName: string): UpstreamFailure {
  if (error instanceof UpstreamFailure) return error;
  // The request was refused before anything was fetched (its rate limit, or the instance's bound
  // on fetches in flight; src/http/outbound-fetch.ts): that refusal is its answer, not the provider's failure.
  const refusal = refusalIn(error);
  if (refusal) throw refusal;
  if (error instanceof AuthorizationResponseError) {
    return new UpstreamFailure(error.error === 'access_denied' ? 'denied' : 'invalid_answer', providerName, { cause: error });
  }
  if (error instanceof ResponseBodyError) return new UpstreamFailure('invalid_answer', providerName, { cause: error });
  if (causedByNetwork(error)) return new UpstreamFailure('unreachable', providerName, { cause: error });
  if (error instanceof ClientError || error instanceof TypeError) return new UpstreamFailure('invalid_answer', providerName, { cause: error });
  throw error;
}

/** The refusal of the request itself among the error's causes, which openid-client wraps. */
function refusalIn(error: unknown): OAuthError | undefined {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    if (cause instanceof OAuthError) return cause;
  }
  return undefined;
}

/** Whether the fetcher (or the timeout openid-client sets) failed somewhere in the error's causes. */
function causedByNetwork(error: unknown): boolean {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    if (cause instanceof OutboundError) return true;
    if (cause instanceof ClientError && (cause.code === 'OAUTH_TIMEOUT' || cause.code === 'OAUTH_ABORT')) return true;
  }
  return false;
}

/** What the log may say of a failure: its kind and the codes of its causes, never a URL, a code or a token. */
export function failureDetails(failure: UpstreamFailure): Record<string, unknown> {
  const causes: string[] = [];
  for (let cause = failure.cause, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    const code = cause instanceof OutboundError ? cause.failure : cause instanceof AuthorizationResponseError ? cause.error : (cause as { code?: unknown }).code;
    causes.push(typeof code === 'string' ? `${cause.name}:${code}` : cause.name);
  }
  return { failure: failure.kind, causes };
}
