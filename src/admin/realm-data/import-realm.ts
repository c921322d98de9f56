import type { Journey } from '../../records/journey.js';
import { InvalidJourney, validateJourney } from '../../authn/journeys/validate.js';
import { type RealmSettings, type RealmSettingsPatch, resolveSettings } from '../../records/realm-settings.js';
import type { StoreTransaction } from '../../store/index.js';
import type { Realm } from '../../store/realms.js';
import { type PlanContext, SectionPlanner, type SectionPlan, invalidAt } from './plan.js';
import { sameJson } from './same.js';

/** The realm's own row: its settings and its stored journeys. */

/** The document's journeys, each checked by the engine as `PUT …/journeys/{journey}` checks it. */
export function checkedJourneys(journeys: Readonly<Record<string, unknown>>): Record<string, Journey> {
  const checked: Record<string, Journey> = {};
  for (const [name, journey] of Object.entries(journeys)) {
    try {
      checked[name] = validateJourney(journey);
    } catch (error) {
      if (error instanceof InvalidJourney) throw invalidAt(`journeys.${name}`, error.message);
      throw error;
    }
  }
  return checked;
}

/**
 * The settings become the document's, those it leaves out their defaults; only the settings
 * that differ are written. Named in the summary by setting.
 */
export function planSettings(ctx: PlanContext, realm: Realm, settings: RealmSettingsPatch): { plan: SectionPlan; settings: RealmSettings } {
  const desired = resolveSettings(settings);
  const planner = new SectionPlanner();
  const changed: RealmSettingsPatch = {};
  for (const [name, value] of Object.entries(desired) as Array<[keyof RealmSettings, unknown]>) {
    if (sameJson(realm.settings[name], value)) planner.unchanged();
    else (changed as Record<string, unknown>)[name] = value;
  }
  const names = Object.keys(changed);
  for (const name of names) planner.change(name);
  if (names.length > 0) planner.write(async (tx) => void (await tx.realms.updateSettings(ctx.realm, changed)));
  return { plan: planner.plan(), settings: desired };
}

/** Stores the document's journeys that are new or differ; with prune, deletes the stored ones it leaves out. */
export function planJourneys(ctx: PlanContext, realm: Realm, journeys: Readonly<Record<string, Journey>>): { plan: SectionPlan; journeys: Record<string, Journey> } {
  const planner = new SectionPlanner();
  const final: Record<string, Journey> = { ...realm.journeys };
  for (const [name, journey] of Object.entries(journeys).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const current = realm.journeys[name];
    final[name] = journey;
    const write = async (tx: StoreTransaction) => void (await tx.realms.putJourney(ctx.realm, name, journey));
    if (current === undefined) planner.create(name, write);
    else if (!sameJson(current, journey)) planner.change(name, write);
    else planner.unchanged();
  }
  if (ctx.prune) {
    for (const name of Object.keys(realm.journeys).filter((name) => !Object.hasOwn(journeys, name)).sort()) {
      delete final[name];
      planner.delete(name, async (tx) => void (await tx.realms.deleteJourney(ctx.realm, name)));
    }
  }
  return { plan: planner.plan(), journeys: final };
}
