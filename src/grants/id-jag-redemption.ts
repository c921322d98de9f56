import { type AssertionClaims, type AssertionKind, type JwtAssertionDeps, assertionRefusalReason, verifyJwtAssertion } from '../assertions/jwt-assertion.js';
import { OAuthError } from '../errors.js';
import type { RequestRealm } from '../records/realm.js';
import { isResourceIdentifier } from '../resources/identifier.js';
import { checkedTargets } from '../resources/targets.js';
import { isScopeString, namedBriefly, requestedScope, scopeNames, scopesOutside } from '../records/scope.js';
import type { Client } from '../store/clients.js';
import type { IdentityProviderStore } from '../store/identity-providers.js';
import type { ResourceStore } from '../store/resources.js';
import type { TrustedIssuer } from '../store/trusted-issuers.js';
import type { UserIdentityStore } from '../store/user-identities.js';
import type { User, UserStore } from '../store/users.js';
import { ID_JAG_TYP } from './id-jag-issuance.js';

/**
 * An ID-JAG as a JWT bearer assertion (draft-ietf-oauth-identity-assertion-authz-grant §5.1):
 * typed `oauth-id-jag+jwt`, nothing else; valid for at most an hour as any JWT bearer assertion
 * (RFC 7523 §3), though its issuer gives it minutes.
 */
export const ID_JAG_ASSERTION: AssertionKind = { typ: ID_JAG_TYP, typRequired: true, maxLifetimeSeconds: 3600 };

export interface IdJagRedemptionDeps extends JwtAssertionDeps {
  users: Pick<UserStore, 'getById' | 'getByEmail'>;
  identityProviders: Pick<IdentityProviderStore, 'list'>;
  userIdentities: Pick<UserIdentityStore, 'personOf'>;
  resources: Pick<ResourceStore, 'find'>;
}

/** What a redeemed ID-JAG gives: its person, and the scope and audiences of the access token. */
export interface RedeemedIdJag {
  readonly user: User;
  readonly scope: readonly string[];
  readonly audience: readonly string[] | undefined;
  readonly audienceScopes: readonly string[] | undefined;
}

/** What the token request asks beside the assertion: `scope`, and the `resource`/`audience` the endpoint checked. */
export interface IdJagRequest {
  readonly realm: RequestRealm;
  readonly client: Client;
  readonly scope: string | undefined;
  readonly audience: readonly string[] | undefined;
  readonly audienceScopes: readonly string[] | undefined;
}

export function refuseAssertion(why: string): never {
  throw new OAuthError('invalid_grant', `the assertion is not accepted: ${why}`);
}

/**
 * The resource authorization server's side of ID-JAG (its §5.1, CONTRACT.md §15), for a trusted
 * issuer with `id_jag`: the assertion is typed `oauth-id-jag+jwt`, signed by the issuer's keys,
 * for this realm alone (`aud` its issuer, one string), for the authenticated client (`client_id`),
 * and spent once (`jti`, decided by one statement for every instance). Its `sub` is the person
 * linked to the issuer's subject (through an identity provider of the same issuer), else, with
 * the issuer's `link_by_email`, the one person whose verified email it names, verified there too.
 * The access token is for the resources it names (or fewer, asked), with at most its scope; a
 * refused assertion spends nothing, and each refusal names its rule.
 */
export async function redeemIdJag(deps: IdJagRedemptionDeps, issuer: TrustedIssuer, request: IdJagRequest, assertion: string): Promise<RedeemedIdJag> {
  const { realm, client } = request;
  // Its §8.3: the identity provider does not redeem its own ID-JAGs: they cross trust domains.
  if (issuer.issuer === realm.issuer) refuseAssertion('an ID-JAG of this realm itself is not redeemed here');
  const verified = await verifyJwtAssertion(
    deps,
    realm.name,
    assertion,
    { kind: ID_JAG_ASSERTION, signer: issuer, issuer: issuer.issuer, audience: [realm.issuer], requiredClaims: ['sub', 'client_id', 'iat'] },
    // Before the jti is spent: an assertion refused for any reason may not be spent by it.
    async (claims) => {
      if (claims.client_id !== client.client_id) refuseAssertion('its client_id claim names another client than the one authenticated');
      const targets = await targetsOf(deps, request, claims);
      const scope = scopeOf(request, claims);
      const user = await personOf(deps, realm, issuer, claims);
      return { user, scope, ...targets };
    },
  );
  if (!verified.valid) {
    refuseAssertion(verified.problem === 'typ' ? `its typ header must be ${ID_JAG_TYP}` : assertionRefusalReason(verified));
  }
  return verified.accepted;
}

/**
 * The audiences of the access token: those asked (the endpoint held them to the realm's
 * resources and the client's `allowed_audiences`), each named by the ID-JAG's `resource` when it
 * names some; else its `resource`, held to the same.
 */
async function targetsOf(deps: Pick<IdJagRedemptionDeps, 'resources'>, request: IdJagRequest, claims: AssertionClaims) {
  const named = resourceClaim(claims.resource);
  if (request.audience !== undefined) {
    const outside = named === undefined ? [] : request.audience.filter((value) => !named.includes(value));
    if (outside.length > 0) throw new OAuthError('invalid_target', `the assertion's resource claim does not name: ${namedBriefly(outside)}`);
    return { audience: request.audience, audienceScopes: request.audienceScopes };
  }
  if (named === undefined) return { audience: undefined, audienceScopes: undefined };
  const checked = await checkedTargets(deps.resources, request.realm.name, request.client, named);
  return { audience: checked.audience, audienceScopes: checked.scopes };
}

/** The `resource` claim: one URI or several (its §3); undefined when absent. */
function resourceClaim(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  const values = Array.isArray(value) ? value : [value];
  if (values.length === 0 || values.length > 100 || !values.every((item) => typeof item === 'string' && isResourceIdentifier(item))) {
    refuseAssertion('its resource claim is not an absolute URI or a list of them');
  }
  return values as string[];
}

/**
 * At most the scope the ID-JAG names (RFC 6749 §3.3 as its §5.1 says): a request's `scope` must
 * lie within it, and the client's own; without one, what the ID-JAG names that the client may
 * have. An ID-JAG without `scope` leaves it to the request, as any JWT bearer assertion.
 */
function scopeOf(request: IdJagRequest, claims: AssertionClaims): string[] {
  const { client } = request;
  if (claims.scope === undefined) return requestedScope(request.scope, client.scope);
  if (typeof claims.scope !== 'string' || !isScopeString(claims.scope)) refuseAssertion('its scope claim is malformed');
  const granted = scopeNames(claims.scope);
  if (request.scope === undefined) {
    const clientScope = scopeNames(client.scope);
    return granted.filter((name) => clientScope.includes(name));
  }
  const asked = requestedScope(request.scope, client.scope);
  const wider = scopesOutside(asked, granted);
  if (wider.length > 0) throw new OAuthError('invalid_scope', `the scope asked is wider than the assertion's scope claim: ${namedBriefly(wider)}`);
  return asked;
}

/** The person the ID-JAG's subject is: linked, else (with `link_by_email`) the one with its verified email; enabled. */
async function personOf(deps: IdJagRedemptionDeps, realm: RequestRealm, issuer: TrustedIssuer, claims: AssertionClaims): Promise<User> {
  const sub = claims.sub;
  if (typeof sub !== 'string' || sub === '') refuseAssertion('its sub claim is not acceptable');
  const person = (await linkedPerson(deps, realm, issuer, sub)) ?? (issuer.link_by_email ? await personByEmail(deps, realm, claims) : undefined);
  if (!person) {
    refuseAssertion(
      issuer.link_by_email
        ? 'its subject is linked to no person of this realm, and no person has the verified email it names'
        : 'its subject is linked to no person of this realm',
    );
  }
  if (!person.enabled) refuseAssertion('its subject is disabled');
  return person;
}

/** The person linked to (issuer, sub): through an identity provider of the realm with that issuer (CONTRACT.md §10). */
async function linkedPerson(deps: IdJagRedemptionDeps, realm: RequestRealm, issuer: TrustedIssuer, sub: string): Promise<User | undefined> {
  const providers = (await deps.identityProviders.list(realm.name)).filter((provider) => provider.issuer === issuer.issuer);
  for (const provider of providers) {
    const person = await deps.userIdentities.personOf(realm.name, provider.alias, sub);
    if (person) return person;
  }
  return undefined;
}

/** `link_by_email`: the issuer vouches for the email (`email_verified: true`), and so does this realm (the person's `email_verified`). */
async function personByEmail(deps: IdJagRedemptionDeps, realm: RequestRealm, claims: AssertionClaims): Promise<User | undefined> {
  if (claims.email_verified !== true || typeof claims.email !== 'string' || claims.email === '') return undefined;
  const person = await deps.users.getByEmail(realm.name, claims.email);
  return person?.claims.email_verified === true ? person : undefined;
}
