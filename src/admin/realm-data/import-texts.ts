import type { Realm } from '../../store/realms.js';
import { checkedTexts } from '../texts.js';
import { type PlanContext, SectionPlanner, type SectionPlan } from './plan.js';
import { sameJson } from './same.js';

/** The realm's own words of the document, each language checked as `PUT …/texts/{locale}` checks it. */
export function checkedRealmTexts(texts: Readonly<Record<string, unknown>>): Record<string, Record<string, string>> {
  return Object.fromEntries(Object.entries(texts).map(([locale, words]) => [locale, checkedTexts(words, locale, `texts.${locale}`)]));
}

/**
 * Stores the document's texts of each language that are new or differ (a language's texts are
 * one entry, named by the language); with prune, deletes the languages it leaves out.
 */
export function planTexts(ctx: PlanContext, realm: Realm, texts: Readonly<Record<string, Readonly<Record<string, string>>>>): SectionPlan {
  const planner = new SectionPlanner();
  for (const [locale, words] of Object.entries(texts).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const current = realm.texts[locale];
    const write = async (tx: PlanContext['tx']) => void (await tx.realms.putTexts(ctx.realm, locale, words));
    if (current === undefined) planner.create(locale, write);
    else if (!sameJson(current, words)) planner.change(locale, write);
    else planner.unchanged();
  }
  if (ctx.prune) {
    for (const locale of Object.keys(realm.texts).filter((locale) => !Object.hasOwn(texts, locale)).sort()) {
      planner.delete(locale, async (tx) => void (await tx.realms.putTexts(ctx.realm, locale, undefined)));
    }
  }
  return planner.plan();
}
