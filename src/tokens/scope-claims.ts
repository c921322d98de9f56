import type { Memberships, MembershipStore } from '../store/memberships.js';
import type { ScopeStore } from '../store/scopes.js';
import type { Claims, User } from '../store/users.js';
import { ATTRIBUTE_SOURCE_PREFIX, type ClaimToken, type ScopeClaim } from '../records/scope-claim.js';

export type MappedClaims = Readonly<Partial<Record<ClaimToken, Claims>>>;

const NONE: MappedClaims = Object.freeze({});

const needsMemberships = (claim: ScopeClaim): boolean => claim.source === 'roles' || claim.source === 'groups';

/** The value a mapping gives the person, or undefined when they have none (the claim is then left out). */
function valueOf(claim: ScopeClaim, user: User, memberships: Memberships | undefined): unknown {
  switch (claim.source) {
    case 'roles':
      return memberships?.effectiveRoles;
    case 'groups':
      return memberships?.groups;
    case 'username':
      return user.username;
    case 'email':
      return typeof user.claims.email === 'string' ? user.claims.email : undefined;
    default:
      return claim.source.startsWith(ATTRIBUTE_SOURCE_PREFIX) ? user.claims[claim.source.slice(ATTRIBUTE_SOURCE_PREFIX.length)] : undefined;
  }
}

/**
 * The claims that the scopes of a token map (CONTRACT.md §10 "Claims from scopes"), per token
 * kind. A scope's mappings come from the realm's cached scopes; the person's roles and groups
 * are read afresh, in one statement, and only when a mapping asks for them, so that a change
 * shows in the next token on any instance and a token whose scopes map nothing costs nothing.
 */
export class ScopeClaims {
  constructor(
    private readonly scopes: Pick<ScopeStore, 'claimsOf'>,
    private readonly memberships: Pick<MembershipStore, 'ofPerson' | 'personWithMemberships'>,
  ) {}

  /**
   * The claims for each of `tokens` that `scope` maps for the person (their record, or their
   * id when the caller has no record at hand; a person who no longer exists gets none).
   */
  async claimsFor(realm: string, scope: readonly string[], person: User | string, tokens: readonly ClaimToken[]): Promise<MappedClaims> {
    if (tokens.length === 0 || scope.length === 0) return NONE;
    const mappings = (await this.scopes.claimsOf(realm, scope)).filter((claim) => claim.tokens.some((token) => tokens.includes(token)));
    if (mappings.length === 0) return NONE;

    let user: User;
    let memberships: Memberships | undefined;
    if (typeof person === 'string') {
      const found = await this.memberships.personWithMemberships(realm, person);
      if (!found) return NONE;
      ({ user, memberships } = found);
    } else {
      user = person;
      if (mappings.some(needsMemberships)) memberships = await this.memberships.ofPerson(realm, user.id);
    }

    const claims: Partial<Record<ClaimToken, Claims>> = {};
    for (const mapping of mappings) {
      const value = valueOf(mapping, user, memberships);
      if (value === undefined) continue;
      for (const token of mapping.tokens) {
        if (tokens.includes(token)) (claims[token] ??= {})[mapping.name] = value;
      }
    }
    return claims;
  }
}
