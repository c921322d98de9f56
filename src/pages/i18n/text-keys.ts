import { SafeHtml } from '../html.js';
import { type NumberKind, NUMBER_TEXTS, numberedTemplate, pluralCategories, splitCountedKey } from './counted-texts.js';
import { en } from './en.js';

/**
 * The texts of the catalogue that a realm (`…/texts/{locale}`) or a JSON catalogue may word
 * anew, by their dotted key (`signIn.title`). A text with parameters is written with positional
 * placeholders, `{0}`, `{1}`…, in the parameters' order; each of them must be kept. A text with
 * a number is worded as ./counted-texts.ts says (`<key>#one`, `<key>#other`… for a count).
 */
export interface TextKey {
  readonly key: string;
  /** How many placeholders the text has: `{0}` to `{placeholders - 1}`. */
  readonly placeholders: number;
  /** Whether the catalogue's text is markup (its parameters may be markup too). */
  readonly markup: boolean;
  /** What its one parameter is, for a text with a number (./counted-texts.ts). */
  readonly number?: NumberKind;
}

const sentinels = (count: number): string[] => Array.from({ length: count }, (_, index) => `{${index}}`);

/**
 * What a text of the catalogue is as an override sees it; none for a text whose parameters are
 * not shown as given. A text that shows none of its parameters (the same words whatever they
 * are) is a text without placeholders.
 */
function keyOf(key: string, value: unknown): TextKey | undefined {
  const number = NUMBER_TEXTS[key];
  if (number) return { key, placeholders: 1, markup: false, number };
  if (typeof value === 'string') return { key, placeholders: 0, markup: false };
  if (value instanceof SafeHtml) return { key, placeholders: 0, markup: true };
  if (typeof value !== 'function') return undefined;
  const count = value.length;
  const render = (args: string[]): unknown => {
    try {
      return (value as (...args: string[]) => unknown)(...args);
    } catch {
      return undefined;
    }
  };
  const rendered = render(sentinels(count));
  if (typeof rendered !== 'string' && !(rendered instanceof SafeHtml)) return undefined;
  const text = String(rendered);
  const markup = rendered instanceof SafeHtml;
  if (sentinels(count).every((sentinel) => text.includes(sentinel))) return { key, placeholders: count, markup };
  const unused = !sentinels(count).some((sentinel) => text.includes(sentinel)) && String(render(sentinels(count).map((_, index) => `x${index}`))) === text;
  return unused ? { key, placeholders: 0, markup } : undefined;
}

function collect(prefix: string, node: Readonly<Record<string, unknown>>, into: Map<string, TextKey>): void {
  for (const [name, value] of Object.entries(node)) {
    const key = prefix === '' ? name : `${prefix}.${name}`;
    if (key === 'lang') continue;
    if (value !== null && typeof value === 'object' && !(value instanceof SafeHtml)) {
      collect(key, value as Record<string, unknown>, into);
      continue;
    }
    const found = keyOf(key, value);
    if (found) into.set(key, found);
  }
}

/** Every text that may be worded anew, by key: read from the English catalogue, which the others follow. */
export const TEXT_KEYS: ReadonlyMap<string, TextKey> = (() => {
  const keys = new Map<string, TextKey>();
  collect('', en, keys);
  return keys;
})();

const PLACEHOLDER = /\{(\d+)\}/g;

/** The keys a text may be stored under in `locale`: its own, and for a count one per plural category of the language. */
export function writableKeys(locale: string): string[] {
  return [...TEXT_KEYS.values()].flatMap(({ key, number }) =>
    number?.kind === 'count' ? pluralCategories(locale).map((category) => `${key}#${category}`) : [key],
  );
}

/** Why `text` cannot stand for the catalogue's text of `written` (a key, or `<key>#<category>`) in `locale`; undefined when it can. */
export function textRefusal(written: string, text: string, locale: string): string | undefined {
  const { key, category } = splitCountedKey(written);
  const known = TEXT_KEYS.get(key);
  if (!known) return 'is not a text of the pages or mails';
  if (category !== undefined) {
    if (known.number?.kind !== 'count') return 'is not a text with a count: only those take a plural category after #';
    const categories = pluralCategories(locale);
    if (!categories.includes(category)) return `${category} is not a plural category of ${locale}, which has ${categories.join(', ')}`;
  }
  const used = new Set([...text.matchAll(PLACEHOLDER)].map((match) => Number(match[1])));
  const missing = sentinels(known.placeholders).filter((_, index) => !used.has(index));
  if (missing.length > 0) return `must keep the placeholders of the original: ${missing.join(', ')}`;
  const unknown = [...used].filter((index) => index >= known.placeholders).sort((a, b) => a - b);
  if (unknown.length > 0) return `has placeholders the original does not have: ${unknown.map((index) => `{${index}}`).join(', ')}`;
  return undefined;
}

/**
 * A catalogue's text of `written` as an override writes it: its words with `{0}`, `{1}`… for its
 * parameters (what `realmgate texts keys` shows); a count's, for a number of its category (the
 * plain key: of `other`); none when it cannot be written so.
 */
export function templateOf(messages: unknown, written: string): string | undefined {
  const { key, category } = splitCountedKey(written);
  const known = TEXT_KEYS.get(key);
  if (!known) return undefined;
  let value: unknown = messages;
  for (const part of key.split('.')) value = (value as Record<string, unknown> | undefined)?.[part];
  if (typeof value !== 'function') return value === undefined ? undefined : String(value);
  try {
    if (known.number) {
      const locale = (messages as { lang?: string }).lang ?? 'en';
      return numberedTemplate((number) => String((value as (number: number) => unknown)(number)), locale, known.number, category);
    }
    return String((value as (...args: string[]) => unknown)(...sentinels(known.placeholders)));
  } catch {
    return undefined;
  }
}
