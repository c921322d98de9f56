import { OAuthError } from '../errors.js';

/**
 * RFC 7521 §4.1.1: every problem with an assertion is `invalid_grant`. `why` is written by
 * this server; it never carries the assertion's content.
 */
export function refuse(why: string): never {
  throw new OAuthError('invalid_grant', `the assertion is not accepted: ${why}`);
}
