import type { RealmSettings } from '../../records/realm-settings.js';
import { DEFAULT_JOURNEY, type Journey } from '../../records/journey.js';
import { journeyOfSteps } from './default-journey.js';
import { withEmailGate } from './email-gate.js';

/** What a realm knows of journeys: its stored ones and the settings that map to them. */
export interface RealmJourneys {
  readonly settings: Pick<RealmSettings, 'authentication' | 'acr_journeys'> & Partial<Pick<RealmSettings, 'email_verification'>>;
  readonly journeys: Readonly<Record<string, Journey>>;
}

/** The journey a sign-in walks, and the `acr` its ID tokens carry. */
export interface SelectedJourney {
  readonly name: string;
  readonly journey: Journey;
  readonly acr: string;
}

/** The acr of a sign-in that no `acr_journeys` entry names (CONTRACT.md §8). */
export const NO_ACR = '0';

/** A journey of the realm by name: a stored one, else `default` from the `authentication` list. */
export function journeyNamed(realm: RealmJourneys, name: string): Journey | undefined {
  if (Object.hasOwn(realm.journeys, name)) return realm.journeys[name];
  return name === DEFAULT_JOURNEY ? journeyOfSteps(realm.settings.authentication) : undefined;
}

/**
 * Which journey runs (CONTRACT.md §8): the client's `journey`, else the one the realm maps
 * from the first of the request's `acr_values` it knows, else `default`. Undefined when the
 * client names a journey the realm no longer has: that sign-in cannot run. With the realm's
 * `email_verification` on, it ends through the email gate (email-gate.ts).
 */
export function selectJourney(
  realm: RealmJourneys,
  request: { clientJourney?: string | null | undefined; acrValues?: readonly string[] | undefined },
): SelectedJourney | undefined {
  const mapping = realm.settings.acr_journeys;
  const asked = request.acrValues?.find((acr) => Object.hasOwn(mapping, acr));
  const name = request.clientJourney ?? (asked === undefined ? DEFAULT_JOURNEY : mapping[asked]!);
  const named = journeyNamed(realm, name);
  if (!named) return undefined;
  const journey = realm.settings.email_verification ? withEmailGate(named) : named;
  const acr = asked !== undefined && mapping[asked] === name ? asked : Object.keys(mapping).find((key) => mapping[key] === name);
  return { name, journey, acr: acr ?? NO_ACR };
}

/** The `acr` values discovery lists for a realm. */
export function acrValuesOf(realm: Pick<RealmJourneys, 'settings'>): string[] {
  return [NO_ACR, ...Object.keys(realm.settings.acr_journeys)];
}
