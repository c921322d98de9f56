import type { Client } from '../store/clients.js';
import type { TransactionPurpose } from '../store/authorization-flow.js';
import { type RealmJourneys, type SelectedJourney, selectJourney } from './journeys/select.js';

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
