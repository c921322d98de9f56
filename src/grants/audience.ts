import { OAuthError } from '../errors.js';
import { isResourceIdentifier } from '../resources/identifier.js';
import { type Targets, checkedTargets } from '../resources/targets.js';
import type { Client } from '../store/clients.js';
import type { ResourceStore } from '../store/resources.js';

/** The token endpoint's parameters that name where a token may be used, each repeatable. */
export const TARGET_PARAMETERS = ['audience', 'resource'] as const;

/**
 * The audiences a token request asks for, with RFC 8693 §2.1 `audience` and RFC 8707 §2
 * `resource` together, at the token endpoint for any grant: undefined when it asks for none.
 * Each must be a registered resource of the realm or one of the client's `allowed_audiences`
 * (CONTRACT.md §5, §10), else `invalid_target`. Checked before any grant runs, so that a
 * refused request spends no code, refresh token or assertion.
 */
export async function requestedTargets(
  resources: Pick<ResourceStore, 'find'>,
  realm: string,
  asked: TargetValues,
  client: Client,
): Promise<Targets | undefined> {
  const { audience, resource } = askedTargets(asked);
  const targets = [...audience, ...resource];
  return targets.length === 0 ? undefined : checkedTargets(resources, realm, client, targets);
}

/** A request's `audience` and `resource` values, as asked (each resource an absolute URI without a fragment). */
export interface AskedTargets {
  readonly audience: readonly string[];
  readonly resource: readonly string[];
}

/** The values of `TARGET_PARAMETERS` as the endpoint read them from the form. */
export type TargetValues = Partial<Record<(typeof TARGET_PARAMETERS)[number], readonly string[]>>;

/**
 * The `audience` and `resource` values of a request, each resource checked to be an absolute URI
 * without a fragment (RFC 8707 §2); as they are for a grant that reads them itself (GrantHandler.readsOwnTargets).
 */
export function askedTargets(asked: TargetValues): AskedTargets {
  const { audience = [], resource = [] } = asked;
  if (resource.some((value) => !isResourceIdentifier(value))) {
    throw new OAuthError('invalid_target', 'each resource must be an absolute URI without a fragment');
  }
  return { audience, resource };
}

/**
 * RFC 8707 §2.2: a code's exchange or a refresh may narrow the grant's audiences, never widen
 * them; by default, the new access token has all of them. A grant authorized for none (the
 * realm's own) may be asked only the client's `allowed_audiences`, which an admin gave the
 * client: a registered resource is asked for at the authorization request, where the person
 * sees it.
 */
export function narrowedAudience(asked: readonly string[] | undefined, granted: readonly string[] | undefined, client: Client): readonly string[] | undefined {
  if (asked === undefined) return granted;
  const within = granted ?? client.allowed_audiences ?? [];
  const wider = asked.filter((value) => !within.includes(value));
  if (wider.length > 0) throw new OAuthError('invalid_target', `the grant does not include this audience: ${wider.slice(0, 3).join(' ')}`);
  return asked;
}
