import type { User } from '../store/users.js';
import { claimsForScope } from './claims.js';
import { CLAIM_TOKENS, RESERVED_CLAIM_NAMES } from '../records/scope-claim.js';
import type { ScopeClaims } from './scope-claims.js';

/**
 * OpenID Connect Core §5.5 (CONTRACT.md §13): the claims a `claims` parameter asked for one
 * destination, as far as the granted `scope` allows: a standard claim of a granted scope
 * (§5.4), or one a granted scope maps for any token (CONTRACT.md §10), now released where it was
 * asked too. A claim the person does not have, or that no granted scope covers, is left out
 * (§5.5: asking, even as essential, is no error); the protocol claims are the server's own.
 * Costs nothing when nothing was asked, so that the flows without `claims` read no more.
 */
export async function askedClaimValues(
  scopeClaims: Pick<ScopeClaims, 'claimsFor'>,
  realm: string,
  scope: readonly string[],
  user: User,
  names: readonly string[] | undefined,
): Promise<Record<string, unknown>> {
  const wanted = (names ?? []).filter((name) => !RESERVED_CLAIM_NAMES.has(name));
  if (wanted.length === 0) return {};
  const standard = claimsForScope(user, scope);
  const mapped = await scopeClaims.claimsFor(realm, scope, user, CLAIM_TOKENS);
  const released: Array<[string, unknown]> = [];
  for (const name of wanted) {
    const value = ownValue(standard, name) ?? CLAIM_TOKENS.map((token) => ownValue(mapped[token], name)).find((found) => found !== undefined);
    if (value !== undefined) released.push([name, value]);
  }
  return Object.fromEntries(released);
}

/** Own properties only: a name such as `constructor` or `__proto__` is no claim of the person's. */
function ownValue(claims: Readonly<Record<string, unknown>> | undefined, name: string): unknown {
  return claims !== undefined && Object.hasOwn(claims, name) ? claims[name] : undefined;
}
