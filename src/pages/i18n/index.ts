import { de } from './de.js';
import { en } from './en.js';
import { fr } from './fr.js';
import type { Locale } from '../../records/locales.js';
import type { RealmTexts } from '../../records/realm-texts.js';
import type { Messages } from './messages.js';
import { worded } from './worded.js';

export { type Locale, SUPPORTED_LOCALES, isLocale, parseUiLocales } from '../../records/locales.js';
export type { Messages, Text } from './messages.js';

const SHIPPED: ReadonlyMap<Locale, Messages> = new Map([
  ['en', en],
  ['de', de],
  ['fr', fr],
]);

/** The catalogues by language: the shipped ones, and those read from JSON at start (./json-catalogues.ts). */
const CATALOGUES = new Map<Locale, Messages>(SHIPPED);

/** The shipped catalogue of a language, if it ships in one. */
export const shippedMessages = (locale: Locale): Messages | undefined => SHIPPED.get(locale);

/** The language's catalogue as it shipped, or none when it did not ship (./json-catalogues.ts unloadCatalogues). */
export function resetCatalogue(locale: Locale): void {
  const shipped = SHIPPED.get(locale);
  if (shipped) CATALOGUES.set(locale, shipped);
  else CATALOGUES.delete(locale);
}

/** Makes `messages` the catalogue of `locale` (./json-catalogues.ts, at start, before the first page). */
export function setCatalogue(locale: Locale, messages: Messages): void {
  CATALOGUES.set(locale, messages);
}

/** The catalogues with a realm's own words, by the realm's texts as its row was read (a changed row reads anew). */
const wordedByRealm = new WeakMap<RealmTexts, Map<Locale, Messages>>();

/** The texts of the pages and mails in `locale` (English for a language without a catalogue), with the realm's own words for it (CONTRACT.md §16). */
export function messagesIn(locale: Locale, texts?: RealmTexts): Messages {
  const base = CATALOGUES.get(locale) ?? en;
  const own = texts?.[locale];
  if (texts === undefined || own === undefined || Object.keys(own).length === 0) return base;
  let byLocale = wordedByRealm.get(texts);
  if (!byLocale) wordedByRealm.set(texts, (byLocale = new Map()));
  let messages = byLocale.get(locale);
  if (!messages) byLocale.set(locale, (messages = worded(base, own)));
  return messages;
}
