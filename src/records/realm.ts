import type { Journey } from './journey.js';
import type { RealmSettings } from './realm-settings.js';

/** The realm a request addresses, as its endpoints see it. */
export interface RequestRealm {
  readonly name: string;
  readonly issuer: string;
  readonly settings: RealmSettings;
  /** The journeys an admin stored (CONTRACT.md §8). */
  readonly journeys: Readonly<Record<string, Journey>>;
}
