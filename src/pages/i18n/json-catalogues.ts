import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { addSupportedLocale, removeSupportedLocale } from '../../records/locales.js';
import { en } from './en.js';
import { resetCatalogue, setCatalogue, shippedMessages } from './index.js';
import type { Messages } from './messages.js';
import { textRefusal } from './text-keys.js';
import { worded } from './worded.js';

/**
 * Catalogues read from JSON (`LOCALES_DIR`, CONTRACT.md §16): a file `<locale>.json` per
 * language, its texts by the catalogue's keys, flat (`"signIn.username": "…"`) or nested as the
 * English catalogue is (`"signIn": {"username": "…"}`), written as `realmgate texts keys` shows
 * them (`{0}`, `{1}`… for what a page fills in; `<key>#one`, `<key>#other`… for a count). A new language needs no code: its texts missing
 * from the file are the English ones. A file for a shipped language words it anew. A key the
 * English catalogue does not have, or a text that drops a placeholder, stops the start.
 */

/** A primary language tag, as the file is named: `it.json`, `pt.json`. */
const FILE = /^([a-z]{2,3})\.json$/;
const MAX_TEXT_LENGTH = 2000;

export class CatalogueError extends Error {
  override name = 'CatalogueError';
}

/** The texts of a file's JSON by dotted key. */
function flattened(value: unknown, file: string, prefix = '', into: Record<string, string> = {}): Record<string, string> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new CatalogueError(`${file}${prefix ? ` ${prefix}` : ''}: must be an object of texts by key`);
  for (const [name, inner] of Object.entries(value)) {
    const key = prefix === '' ? name : `${prefix}.${name}`;
    if (typeof inner === 'string') into[key] = inner;
    else flattened(inner, file, key, into);
  }
  return into;
}

function checked(texts: Readonly<Record<string, string>>, locale: string, file: string): Record<string, string> {
  const problems: string[] = [];
  for (const [key, text] of Object.entries(texts)) {
    const refusal =
      textRefusal(key, text, locale) ??
      (text.length === 0 ? 'must not be empty' : text.length > MAX_TEXT_LENGTH ? `must be at most ${MAX_TEXT_LENGTH} characters` : undefined);
    if (refusal) problems.push(`${key}: ${refusal}`);
  }
  if (problems.length > 0) throw new CatalogueError(`${file}: ${problems.slice(0, 5).join('; ')}`);
  return texts as Record<string, string>;
}

/** The catalogue a file describes: its texts over the language's shipped catalogue, else over the English one. */
export function catalogueOf(locale: string, json: unknown, file = `${locale}.json`): Messages {
  const texts = checked(flattened(json, file), locale, file);
  const base = shippedMessages(locale) ?? { ...en, lang: locale };
  return worded(base, texts);
}

/** Reads every `<locale>.json` of `dir` and makes each language one the pages speak; the languages read, in order. */
export function loadCatalogues(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => FILE.test(name)).sort();
  } catch (error) {
    throw new CatalogueError(`cannot read ${dir} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const read = names.map((name) => {
    const locale = FILE.exec(name)![1]!;
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(join(dir, name), 'utf8'));
    } catch (error) {
      throw new CatalogueError(`${name}: is not JSON (${(error as Error).message})`);
    }
    return [locale, catalogueOf(locale, json, name)] as const;
  });
  for (const [locale, messages] of read) {
    setCatalogue(locale, messages);
    addSupportedLocale(locale);
  }
  return read.map(([locale]) => locale);
}

/**
 * Takes back what `loadCatalogues` read: the languages are no longer spoken, a shipped one speaks
 * its shipped words again. For a process that reads catalogues more than once (the tests, whose
 * files share one module graph).
 */
export function unloadCatalogues(locales: readonly string[]): void {
  for (const locale of locales) {
    resetCatalogue(locale);
    removeSupportedLocale(locale);
  }
}
