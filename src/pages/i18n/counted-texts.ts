import type { SafeHtml } from '../html.js';
import type { en } from './en.js';
import { exactDuration, roundedDuration } from './units.js';

/**
 * The texts whose one parameter is a number. Their words around it depend on it, so an override
 * cannot be one template with the number's digits in it:
 *
 * - a *count* (codes left, minutes to wait, characters at least) is worded per plural category
 *   of the language, as CLDR names them (`one`, `few`, `many`, `other`…): the keys
 *   `<key>#one`, `<key>#other`…, with `{0}` for the number written in the language. The plain
 *   `<key>` is one template for every count.
 * - a *length of time* (given in seconds, shown in its largest fitting unit) is worded once,
 *   with `{0}` for the length in words ("5 minutes", "5 Minuten"), which carry their plural.
 */
export type NumberKind = { readonly kind: 'count' } | { readonly kind: 'duration'; readonly words: (locale: string, seconds: number) => string };

/** The dotted keys of the catalogue's texts whose one parameter is a number. */
type NumberedKeys<T, Prefix extends string = ''> = {
  [K in keyof T & string]: T[K] extends (...args: infer A) => unknown
    ? A extends [number]
      ? `${Prefix}${K}`
      : never
    : T[K] extends string | SafeHtml
      ? never
      : NumberedKeys<T[K], `${Prefix}${K}.`>;
}[keyof T & string];

const COUNT: NumberKind = { kind: 'count' };
const EXACT: NumberKind = { kind: 'duration', words: exactDuration };
const ROUNDED: NumberKind = { kind: 'duration', words: roundedDuration };

/** Each of them, by key: a text with a number that is not declared here does not compile. */
export const NUMBER_TEXTS: Readonly<Record<string, NumberKind>> = {
  'signIn.lockedOut': COUNT,
  'device.tooManyWrongCodes': COUNT,
  'account.signInAgainFirst': EXACT,
  'account.password.lockedOut': COUNT,
  'account.passkeys.failures.limit': COUNT,
  'account.recoveryCodes.left': COUNT,
  'register.givenNameInvalid': COUNT,
  'register.familyNameInvalid': COUNT,
  'passwordPolicy.too_short': COUNT,
  'passwordPolicy.too_long': COUNT,
  'reset.checkMail': COUNT,
  'mail.expiry': ROUNDED,
  'mail.codeExpiry': ROUNDED,
} satisfies Record<NumberedKeys<typeof en>, NumberKind>;

/** The plural categories of a language, as CLDR names them, in the platform's order (`other` last). */
export function pluralCategories(locale: string): readonly string[] {
  const categories = new Intl.PluralRules(locale).resolvedOptions().pluralCategories as string[];
  return [...categories].sort((a, b) => (a === 'other' ? 1 : b === 'other' ? -1 : CLDR_ORDER.indexOf(a) - CLDR_ORDER.indexOf(b)));
}

const CLDR_ORDER = ['zero', 'one', 'two', 'few', 'many', 'other'];

/** A counted text's override key: `<key>#<category>`, or the plain key (every count). */
export function splitCountedKey(written: string): { key: string; category?: string } {
  const at = written.indexOf('#');
  return at < 0 ? { key: written } : { key: written.slice(0, at), category: written.slice(at + 1) };
}

/** The numbers to show a category's words with: distinctive ones first, so that the number is found in the text. */
const SAMPLES = [5, 7, 2, 3, 1, 0, 11, 21, 22, 25, 101, 102, 1_000_000, ...Array.from({ length: 200 }, (_, index) => index), 1.5];

/** A number of that category in the language; none for a category the language does not have. */
export function sampleOf(locale: string, category: string): number | undefined {
  const rules = new Intl.PluralRules(locale);
  return SAMPLES.find((number) => rules.select(number) === category);
}

/** The number as a counted override's `{0}` shows it: written in the language ("1,000", "1.000"). */
export const countWords = (locale: string, count: number): string => new Intl.NumberFormat(locale).format(count);

/**
 * What stands for a text with a number once a realm or a catalogue words it anew: the template
 * of the number's plural category, else the plain one, else the text it replaces.
 */
export function numberedReplacement(
  original: (value: number) => string,
  locale: string,
  kind: NumberKind,
  templates: { plain?: string; byCategory: ReadonlyMap<string, string> },
  fill: (template: string, args: readonly unknown[]) => string,
): (value: number) => string {
  if (kind.kind === 'duration') {
    const { plain } = templates;
    return plain === undefined ? original : (seconds) => fill(plain, [kind.words(locale, seconds)]);
  }
  const rules = new Intl.PluralRules(locale);
  return (count) => {
    const template = templates.byCategory.get(rules.select(count)) ?? templates.plain;
    return template === undefined ? original(count) : fill(template, [countWords(locale, count)]);
  };
}

/** The words a text's number shows as, for the number `value`, in the forms a catalogue may write it. */
function shownAs(locale: string, kind: NumberKind, value: number): string[] {
  if (kind.kind === 'duration') return [kind.words(locale, value), kind.words('en', value)];
  return [countWords(locale, value), String(value)];
}

/**
 * A text with a number as an override writes it: rendered with a number of the category (a
 * length of five minutes), that number's words replaced by `{0}`; none when they are not found.
 */
export function numberedTemplate(render: (value: number) => string, locale: string, kind: NumberKind, category: string | undefined): string | undefined {
  const value = kind.kind === 'duration' ? 300 : sampleOf(locale, category ?? 'other');
  if (value === undefined) return undefined;
  const text = render(value);
  for (const words of shownAs(locale, kind, value)) {
    const escaped = words.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const found = new RegExp(`(?<![\\d])${escaped}(?![\\d])`, 'g');
    if (found.test(text)) return text.replace(found, '{0}');
  }
  return undefined;
}
