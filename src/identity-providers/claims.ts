/**
 * What a new person takes from their upstream account (CONTRACT.md §10): a username made from
 * the provider's `username_claim`, and the email and name claims.
 */

/** What a username may not hold (src/admin/users.ts: letters, digits and . _ @ + -). */
const NOT_IN_USERNAME = /[^\p{L}\p{N}._@+-]/gu;
/** Room for the suffix a taken name gets (usernames are at most 255 characters). */
const MAX_BASE_LENGTH = 200;
const COPIED_CLAIMS = ['email', 'name', 'given_name', 'family_name'] as const;
const MAX_CLAIM_LENGTH = 320;

/** The username a new person asks for: the claim, else their email, else one made from the alias. */
export function usernameFrom(claims: Readonly<Record<string, unknown>>, usernameClaim: string, alias: string): string {
  for (const value of [claims[usernameClaim], claims.email]) {
    if (typeof value !== 'string') continue;
    const cleaned = [...value.normalize('NFC').replace(NOT_IN_USERNAME, '')].slice(0, MAX_BASE_LENGTH).join('');
    if (cleaned !== '') return cleaned;
  }
  return `${alias}-user`;
}

/** The claims a new person's record starts with; `email_verified` only as the upstream asserts it. */
export function copiedClaims(claims: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const copied: Record<string, unknown> = {};
  for (const name of COPIED_CLAIMS) {
    const value = claims[name];
    if (typeof value === 'string' && value.trim() !== '' && value.length <= MAX_CLAIM_LENGTH) copied[name] = value;
  }
  if (copied.email !== undefined && typeof claims.email_verified === 'boolean') copied.email_verified = claims.email_verified;
  return copied;
}

/** The email the upstream vouches for: its `email` when `email_verified` is true. */
export function verifiedEmailOf(claims: Readonly<Record<string, unknown>>): string | undefined {
  return claims.email_verified === true && typeof claims.email === 'string' && claims.email !== '' ? claims.email : undefined;
}
