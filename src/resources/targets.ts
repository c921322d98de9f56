import { OAuthError } from '../errors.js';
import type { Client } from '../store/clients.js';
import type { Resource, ResourceStore } from '../store/resources.js';

/** Where a token is meant to be used (RFC 8707 `resource`, RFC 8693 `audience`), as checked. */
export interface Targets {
  /** Its `aud`: the values asked, each once, in the order asked. */
  readonly audience: readonly string[];
  /** The scopes an access token for them may carry (`scopesWithin`); undefined: any. */
  readonly scopes: readonly string[] | undefined;
}

/**
 * The values a request asks for, each a registered resource of the realm or one of the client's
 * `allowed_audiences` (CONTRACT.md §5, §10), else `invalid_target`; a resource of another realm
 * is unknown here.
 */
export async function checkedTargets(resources: Pick<ResourceStore, 'find'>, realm: string, client: Client, asked: readonly string[]): Promise<Targets> {
  const audience = [...new Set(asked)];
  const registered = await resources.find(realm, audience);
  const known = new Set([...registered.map((resource) => resource.identifier), ...(client.allowed_audiences ?? [])]);
  const refused = audience.filter((value) => !known.has(value));
  if (refused.length > 0) {
    // The client's own request names them; they are echoed back to it alone.
    throw new OAuthError('invalid_target', `not a resource of this realm, nor an audience the client may ask for: ${refused.slice(0, 3).join(' ')}`);
  }
  return { audience, scopes: scopesWithin(registered, audience) };
}

/** The scopes an access token for `audience` may carry, from the audiences' stored resources (a refresh's grant). */
export async function scopesOfAudience(resources: Pick<ResourceStore, 'find'>, realm: string, audience: readonly string[] | undefined): Promise<readonly string[] | undefined> {
  if (audience === undefined || audience.length === 0) return undefined;
  return scopesWithin(await resources.find(realm, audience), audience);
}

/**
 * RFC 8707 §2.2 leaves to the server what a token for several resources may do. Here a resource
 * that lists `scopes` owns those: a token for a set of audiences carries, of the scopes asked,
 * those that one of them lists. An audience that lists none (a resource without `scopes`, or a
 * client's `allowed_audiences` value) takes any scope, and so does the token. Undefined: any.
 */
export function scopesWithin(registered: readonly Resource[], audience: readonly string[]): readonly string[] | undefined {
  const byIdentifier = new Map(registered.map((resource) => [resource.identifier, resource]));
  const lists = audience.map((value) => byIdentifier.get(value)?.scopes);
  if (lists.length === 0 || lists.some((list) => list === undefined)) return undefined;
  return [...new Set(lists.flatMap((list) => list!))];
}

/** The access token's scope: those of `scope` within `within` (all when undefined), in their order. */
export function accessScope(scope: readonly string[], within: readonly string[] | undefined): readonly string[] {
  return within === undefined ? scope : scope.filter((name) => within.includes(name));
}
