import type { Journey } from './journey.js';
import type { RealmSettings } from './realm-settings.js';
import type { RealmTexts } from './realm-texts.js';

/** The realm a request addresses, as its endpoints see it. */
export interface RequestRealm {
  readonly name: string;
  readonly issuer: string;
  readonly settings: RealmSettings;
  /** The journeys an admin stored (CONTRACT.md §8). */
  readonly journeys: Readonly<Record<string, Journey>>;
  /** Its own words for its pages and mails, by language (CONTRACT.md §16); none where a realm is made up for a page. */
  readonly texts?: RealmTexts;
}
