/** The languages the pages and mails ship in (CONTRACT.md §10 "Languages"), as BCP 47 primary language tags: a realm's default. */
export const SHIPPED_LOCALES = ['en', 'de', 'fr'] as const;

/**
 * A language the pages and mails speak: a shipped one, or one whose catalogue was read from
 * JSON at start (src/pages/i18n/json-catalogues.ts). A primary tag, lower case.
 */
export type Locale = string;

const supported: string[] = [...SHIPPED_LOCALES];

/** Every language the pages and mails speak: the shipped ones, then those read at start. */
export const SUPPORTED_LOCALES: readonly Locale[] = supported;

/** Adds a language whose catalogue was read at start. */
export function addSupportedLocale(tag: Locale): void {
  if (!supported.includes(tag)) supported.push(tag);
}

/** Takes back a language read at start, for a process that reads its catalogues again (a test); a shipped one stays. */
export function removeSupportedLocale(tag: Locale): void {
  const at = supported.indexOf(tag);
  if (at >= SHIPPED_LOCALES.length) supported.splice(at, 1);
}

export const isLocale = (tag: string): tag is Locale => supported.includes(tag);

/** A text an admin wrote in some of the languages (a scope's `descriptions`, CONTRACT.md §16). */
export type LocalisedTexts = Readonly<Partial<Record<Locale, string>>>;

/** A language tag as `ui_locales` and `Accept-Language` carry it (RFC 5646, loosely: letters, digits and hyphens). */
const LANGUAGE_TAG = /^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*$/;

/** The most tags of one list that are looked at: a header of any size costs the same. */
const MAX_TAGS = 20;

/**
 * `ui_locales` (OIDC Core §3.1.2.1): language tags separated by spaces, most preferred first.
 * What is not a tag is left out; an empty list is none.
 */
export function parseUiLocales(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const tags = value.split(' ').filter((tag) => LANGUAGE_TAG.test(tag)).slice(0, MAX_TAGS);
  return tags.length > 0 ? tags : undefined;
}

/**
 * The ranges of an `Accept-Language` header (RFC 9110 §12.5.4) by preference: highest
 * q-value first, the header's order among equals; `q=0` ("not acceptable") and malformed
 * entries left out.
 */
export function parseAcceptLanguage(header: string | undefined): string[] {
  if (header === undefined) return [];
  const ranges: Array<{ range: string; q: number; index: number }> = [];
  for (const [index, entry] of header.split(',').slice(0, MAX_TAGS).entries()) {
    const [range = '', ...params] = entry.split(';').map((part) => part.trim());
    if (range !== '*' && !LANGUAGE_TAG.test(range)) continue;
    let q = 1;
    for (const param of params) {
      const match = /^q=(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/i.exec(param);
      if (!match) q = Number.NaN;
      else q = Number(match[1]);
    }
    if (Number.isNaN(q) || q === 0) continue;
    ranges.push({ range, q, index });
  }
  return ranges.sort((a, b) => b.q - a.q || a.index - b.index).map(({ range }) => range);
}

/**
 * The offered locale a tag asks for: the tag itself, or the language it narrows (RFC 4647
 * §3.4 lookup: `de-CH` finds `de`). `*` asks for any, the first offered.
 */
function lookup(tag: string, offered: readonly Locale[]): Locale | undefined {
  if (tag === '*') return offered[0];
  const subtags = tag.toLowerCase().split('-');
  for (let length = subtags.length; length > 0; length--) {
    const candidate = subtags.slice(0, length).join('-');
    const found = offered.find((locale) => locale === candidate);
    if (found) return found;
  }
  return undefined;
}

/** The first offered locale that one of `tags` asks for, most preferred first; none when none does. */
export function pickLocale(tags: readonly string[], offered: readonly Locale[]): Locale | undefined {
  for (const tag of tags) {
    const found = tag === '*' ? undefined : lookup(tag, offered);
    if (found) return found;
  }
  return undefined;
}

/**
 * The language of a page (CONTRACT.md §10): the first of `ui_locales` the realm offers, else
 * the most preferred of `Accept-Language` it offers, else the realm's first.
 */
export function negotiateLocale(input: { uiLocales: readonly string[] | undefined; acceptLanguage: string | undefined; offered: readonly Locale[] }): Locale {
  const { offered } = input;
  return pickLocale(input.uiLocales ?? [], offered) ?? pickLocale(parseAcceptLanguage(input.acceptLanguage), offered) ?? offered[0] ?? 'en';
}
