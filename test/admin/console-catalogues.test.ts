import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { de } from '../../src/admin/console/browser/locales/de.js';
import { fr } from '../../src/admin/console/browser/locales/fr.js';

/**
 * The admin console's catalogues (src/admin/console/browser/locales/) are exact: every English
 * text a console source passes to `t` as a literal has a German and a French entry, and neither
 * catalogue holds an entry that no source uses. The tab labels of main.ts's TABS are keys too
 * (main.ts gives them to `t` as it draws the tabs), and so are the texts marked where they are
 * written with `translatable('…')` (lists of labels that are given to `t` as they are drawn).
 */
const BROWSER = 'src/admin/console/browser';
const CATALOGUES = { de, fr } as const;

/**
 * The calls of `t` with a text that is not a literal, each for its reason. Any other is refused:
 * a text built at run time is one no catalogue can hold.
 */
const NON_LITERAL_CALLS: readonly (readonly [file: string, call: string, reason: string])[] = [
  ['main.ts', 't(label)', "a TABS label, a literal of the list that the scan reads"],
  ['clients.ts', 't(label)', 'a grant type\'s label, marked translatable in GRANTS'],
  ['registration.ts', 't(label)', 'a grant type\'s label, marked translatable in GRANTS (clients.ts)'],
  ['localised-fields.ts', 't(language)', 'a language\'s name, marked translatable in LANGUAGES'],
  ['setting-sections.ts', 't(label)', 'a setting\'s label, marked translatable in LABELS'],
  ['setting-sections.ts', 't(section.title)', 'a section\'s title, marked translatable in SETTING_SECTIONS'],
  ['setting-sections.ts', 't(section.help)', 'a section\'s help, marked translatable in SETTING_SECTIONS'],
];

const sources = (): { file: string; text: string }[] =>
  readdirSync(BROWSER, { recursive: true, encoding: 'utf8' })
    // i18n.ts defines t, and the catalogues are what is checked.
    .filter((file) => file.endsWith('.ts') && !file.startsWith('locales') && file !== 'i18n.ts')
    .map((file) => ({ file, text: withoutComments(readFileSync(join(BROWSER, file), 'utf8')) }));

/** A source without its comments, which may show a call of t as an example. */
const withoutComments = (text: string): string => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

/** A string literal's text: its escapes undone. */
const unescaped = (body: string): string => body.replace(/\\(.)/g, '$1');

/** The English texts `t` is given as literals in a source, and its calls with anything else. */
function scan(text: string): { keys: string[]; others: string[] } {
  const keys: string[] = [];
  const others: string[] = [];
  for (const match of text.matchAll(/(?<![\w.$])(t|translatable)\(\s*(?:'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|([^,)]*))/g)) {
    const literal = match[2] ?? match[3];
    if (literal !== undefined) keys.push(unescaped(literal));
    else others.push(match[1] + '(' + match[4]!.trim() + ')');
  }
  return { keys, others };
}

/** The labels of main.ts's TABS: `name: ['Label', view],`. */
function tabLabels(main: string): string[] {
  const tabs = /const TABS\b[^=]*= \{\n([\s\S]*?)\n\};/.exec(main)?.[1];
  if (tabs === undefined) throw new Error('main.ts has no TABS list');
  return tabs.split('\n').map((line) => {
    const label = /^\s+(?:[\w]+|'[\w-]+'): \['((?:[^'\\]|\\.)*)', \w+\],$/.exec(line)?.[1];
    if (label === undefined) throw new Error(`a TABS line the scan cannot read: ${line}`);
    return unescaped(label);
  });
}

function usedKeys(): Set<string> {
  const keys = new Set<string>();
  for (const { file, text } of sources()) {
    for (const key of scan(text).keys) keys.add(key);
    if (file === 'main.ts') for (const key of tabLabels(text)) keys.add(key);
  }
  return keys;
}

const placeholders = (text: string): string[] => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!).sort();

describe("the admin console's catalogues", () => {
  it('finds the keys of literal calls, escapes undone, and tells other calls apart', () => {
    const { keys, others } = scan("t('It\\'s {name}', { name }) + t(\"Said \\\"so\\\"\") + format(x) + it('x') + t(label) + t(`x${y}`) + translatable('Marked')");
    expect(keys).toEqual(["It's {name}", 'Said "so"', 'Marked']);
    expect(others).toEqual(['t(label)', 't(`x${y}`)']);
    expect(tabLabels("const TABS: X = {\n  settings: ['Settings', settingsView],\n  'trusted-issuers': ['Trusted issuers', trustedIssuersView],\n};")).toEqual(['Settings', 'Trusted issuers']);
  });

  it('finds texts in the console: its main tabs and its picker among them', () => {
    const keys = usedKeys();
    for (const key of ['Settings', 'Users', 'Language', 'Realms', 'Delete {name}']) expect(keys, key).toContain(key);
    expect(keys.size).toBeGreaterThan(200);
  });

  it('calls t with a literal text, but for the calls listed with their reasons', () => {
    const allowed = NON_LITERAL_CALLS.map(([file, call]) => `${file}: ${call}`);
    const others = sources().flatMap(({ file, text }) => scan(text).others.map((call) => `${file}: ${call}`));
    expect(others.filter((call) => !allowed.includes(call))).toEqual([]);
  });

  for (const [locale, catalogue] of Object.entries(CATALOGUES)) {
    it(`has a ${locale} text for every key, with the same placeholders`, () => {
      const missing = [...usedKeys()].filter((key) => !Object.hasOwn(catalogue, key));
      expect(missing, `keys without a ${locale} text`).toEqual([]);
      const mismatched = Object.entries(catalogue).filter(([key, text]) => placeholders(key).join() !== placeholders(text).join());
      expect(mismatched, `${locale} texts whose placeholders differ from the English`).toEqual([]);
      expect(Object.entries(catalogue).filter(([, text]) => text.trim() === ''), `empty ${locale} texts`).toEqual([]);
    });

    it(`holds no ${locale} entry that no source uses`, () => {
      const used = usedKeys();
      expect(Object.keys(catalogue).filter((key) => !used.has(key))).toEqual([]);
    });
  }
});
