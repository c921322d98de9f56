import { OAuthError } from '../errors.js';
import { formParamLists } from '../http/form-params.js';
import { isResourceIdentifier } from '../resources/identifier.js';
import { type Targets, checkedTargets } from '../resources/targets.js';
import type { Client } from '../store/clients.js';
import type { ResourceStore } from '../store/resources.js';

/** The token endpoint's parameters that name where a token may be used, each repeatable. */
const TARGET_PARAMETERS = ['audience', 'resource'] as const;

/**
 * The audiences a token request asks for, with RFC 8693 §2.1 `audience` and RFC 8707 §2
 * `resource` together, at the token endpoint for any grant: undefined when it asks for none.
 * Each must be a registered resource of the realm or one of the client's `allowed_audiences`
 * (CONTRACT.md §5, §10), else `invalid_target`. Checked before any grant runs, so that a
 * refused request spends no code, refresh token or assertion.
 */
export async function requestedTargets(resources: Pick<ResourceStore, 'find'>, realm: string, body: unknown, client: Client): Promise<Targets | undefined> {
  const { audience = [], resource = [] } = formParamLists(body, TARGET_PARAMETERS);
  if (resource.some((value) => !isResourceIdentifier(value))) {
    throw new OAuthError('invalid_target', 'each resource must be an absolute URI without a fragment');
  }
  const asked = [...audience, ...resource];
  return asked.length === 0 ? undefined : checkedTargets(resources, realm, client, asked);
}

/** A request's `audience` and `resource` values, as asked (each resource an absolute URI without a fragment). */
export interface AskedTargets {
  readonly audience: readonly string[];
  readonly resource: readonly string[];
}

/** The `audience` and `resource` values of a request whose grant reads them itself (GrantHandler.readsOwnTargets). */
export function askedTargets(body: unknown): AskedTargets {
  const { audience = [], resource = [] } = formParamLists(body, TARGET_PARAMETERS);
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
