import type { Client } from '../store/clients.js';
import type { AuthorizationTransaction, TransactionPurpose } from '../store/authorization-flow.js';
import { type RealmJourneys, type SelectedJourney, selectJourney } from './journeys/select.js';
import type { JourneyProgress } from '../records/journey.js';
import { beginJourney } from './journeys/walk.js';

/**
 * The journey a transaction's sign-in walks (CONTRACT.md §8): the client's (or, for a plain
 * sign-in, the one it names), else the one its authorization request's `acr_values` map to,
 * else `default`. Undefined when the client
 * names a journey the realm does not have.
 */
export function journeyOfTransaction(realm: RealmJourneys, purpose: TransactionPurpose, client: Client | undefined): SelectedJourney | undefined {
  return selectJourney(realm, {
    clientJourney: purpose.kind === 'sign-in' ? purpose.journey : client?.journey,
    acrValues: purpose.kind === 'authorize' ? purpose.request.acrValues : undefined,
  });
}

/**
 * The transaction's journey and where its sign-in stands as stored, before the decided nodes
 * are taken (`settle`). A sign-in whose journey changed under it (or began before journeys)
 * starts again. Undefined as `journeyOfTransaction` is.
 */
export function storedWalkOf(
  realm: RealmJourneys,
  resumed: { transaction: Pick<AuthorizationTransaction, 'purpose' | 'progress'>; client: Client | undefined },
): { selected: SelectedJourney; progress: JourneyProgress } | undefined {
  const selected = journeyOfTransaction(realm, resumed.transaction.purpose, resumed.client);
  if (!selected) return undefined;
  const stored = resumed.transaction.progress;
  return { selected, progress: stored?.journey === selected.name ? stored : beginJourney(selected.name, selected.journey) };
}
