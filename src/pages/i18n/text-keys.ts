import { SafeHtml } from '../html.js';
import { en } from './en.js';

/**
 * The texts of the catalogue that a realm (`…/texts/{locale}`) or a JSON catalogue may word
 * anew, by their dotted key (`signIn.title`). A text with parameters is written with positional
 * placeholders, `{0}`, `{1}`…, in the parameters' order; each of them must be kept.
 */
export interface TextKey {
  readonly key: string;
  /** How many placeholders the text has: `{0}` to `{placeholders - 1}`. */
  readonly placeholders: number;
  /** Whether the catalogue's text is markup (its parameters may be markup too). */
  readonly markup: boolean;
}

const sentinels = (count: number): string[] => Array.from({ length: count }, (_, index) => `{${index}}`);

/**
 * What a text of the catalogue is as an override sees it; none for a text whose parameters are
 * not words (a number it counts with): the words around them cannot be written as a template.
 */
function keyOf(key: string, value: unknown): TextKey | undefined {
  if (typeof value === 'string') return { key, placeholders: 0, markup: false };
  if (value instanceof SafeHtml) return { key, placeholders: 0, markup: true };
  if (typeof value !== 'function') return undefined;
  const count = value.length;
  let rendered: unknown;
  try {
    rendered = (value as (...args: string[]) => unknown)(...sentinels(count));
  } catch {
    return undefined;
  }
  if (typeof rendered !== 'string' && !(rendered instanceof SafeHtml)) return undefined;
  const text = String(rendered);
  if (!sentinels(count).every((sentinel) => text.includes(sentinel))) return undefined;
  return { key, placeholders: count, markup: rendered instanceof SafeHtml };
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

/** Why `text` cannot stand for the catalogue's text of `key`; undefined when it can. */
export function textRefusal(key: string, text: string): string | undefined {
  const known = TEXT_KEYS.get(key);
  if (!known) return 'is not a text of the pages or mails';
  const used = new Set([...text.matchAll(PLACEHOLDER)].map((match) => Number(match[1])));
  const missing = sentinels(known.placeholders).filter((_, index) => !used.has(index));
  if (missing.length > 0) return `must keep the placeholders of the original: ${missing.join(', ')}`;
  const unknown = [...used].filter((index) => index >= known.placeholders).sort((a, b) => a - b);
  if (unknown.length > 0) return `has placeholders the original does not have: ${unknown.map((index) => `{${index}}`).join(', ')}`;
  return undefined;
}

/**
 * A catalogue's text of `key` as an override writes it: its words with `{0}`, `{1}`… for its
 * parameters (what `realmgate texts keys` shows); none when it cannot be written so.
 */
export function templateOf(messages: unknown, key: string): string | undefined {
  const known = TEXT_KEYS.get(key);
  if (!known) return undefined;
  let value: unknown = messages;
  for (const part of key.split('.')) value = (value as Record<string, unknown> | undefined)?.[part];
  if (typeof value !== 'function') return value === undefined ? undefined : String(value);
  try {
    return String((value as (...args: string[]) => unknown)(...sentinels(known.placeholders)));
  } catch {
    return undefined;
  }
}
