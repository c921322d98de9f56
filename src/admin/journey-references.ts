import { DEFAULT_JOURNEY } from '../records/journey.js';
import { type RealmJourneys, journeyNamed } from '../authn/journeys/select.js';
import { OAuthError } from '../errors.js';
import { namedBriefly } from '../records/scope.js';
import type { Store } from '../store/index.js';

/**
 * What may name a journey (CONTRACT.md §8): a client's `journey` and the realm's
 * `acr_journeys`. Each must name a journey the realm has, stored or `default`; a stored
 * journey they name cannot be deleted.
 */

/** Refuses an `acr_journeys` mapping that leads to a journey the realm does not have. */
export function checkAcrJourneys(realm: RealmJourneys, mapping: Readonly<Record<string, string>> | undefined): void {
  const missing = Object.entries(mapping ?? {}).find(([, name]) => !journeyNamed(realm, name));
  if (missing) {
    throw new OAuthError('invalid_request', `settings.acr_journeys: "${missing[0]}" names the journey "${missing[1]}", which the realm does not have`);
  }
}

/** Refuses a client `journey` the realm does not have; `null` (clearing it) and none pass. */
export function checkClientJourney(realm: RealmJourneys, name: string | null | undefined): void {
  if (name === null || name === undefined || journeyNamed(realm, name)) return;
  throw new OAuthError('invalid_request', `journey: the realm has no journey "${name}"`);
}

/**
 * What keeps a stored journey from being deleted, said for the admin; undefined when nothing
 * does. A stored `default` never is: once deleted, `default` is the `authentication` list again.
 */
export async function referencesTo(store: Store, realm: RealmJourneys & { name: string }, name: string): Promise<string | undefined> {
  if (name === DEFAULT_JOURNEY) return undefined;
  const clientIds = await store.realms.clientsWithJourney(realm.name, name);
  const acrs = Object.entries(realm.settings.acr_journeys).filter(([, journey]) => journey === name).map(([acr]) => acr);
  const uses = [
    ...(clientIds.length > 0 ? [`the journey of clients ${namedBriefly(clientIds)}`] : []),
    ...(acrs.length > 0 ? [`the journey of acr values ${namedBriefly(acrs)} in the realm's acr_journeys`] : []),
  ];
  return uses.length > 0 ? `the journey "${name}" is ${uses.join(', and ')}` : undefined;
}
