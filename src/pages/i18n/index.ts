import { de } from './de.js';
import { en } from './en.js';
import { fr } from './fr.js';
import type { Locale } from '../../records/locales.js';
import type { RealmTexts } from '../../records/realm-texts.js';
import type { Messages } from './messages.js';
import { worded } from './worded.js';

export { type Locale, SUPPORTED_LOCALES, isLocale, parseUiLocales } from '../../records/locales.js';
export type { Messages, Text } from './messages.js';

const CATALOGUES: Readonly<Record<Locale, Messages>> = { en, de, fr };

/** The catalogues with a realm's own words, by the realm's texts as its row was read (a changed row reads anew). */
const wordedByRealm = new WeakMap<RealmTexts, Map<Locale, Messages>>();

/** The texts of the pages and mails in `locale`, with the realm's own words for it (CONTRACT.md §16) when it has some. */
export function messagesIn(locale: Locale, texts?: RealmTexts): Messages {
  const base = CATALOGUES[locale];
  const own = texts?.[locale];
  if (texts === undefined || own === undefined || Object.keys(own).length === 0) return base;
  let byLocale = wordedByRealm.get(texts);
  if (!byLocale) wordedByRealm.set(texts, (byLocale = new Map()));
  let messages = byLocale.get(locale);
  if (!messages) byLocale.set(locale, (messages = worded(base, own)));
  return messages;
}
