import { SafeHtml, escapeHtml } from '../html.js';
import { numberedReplacement, splitCountedKey } from './counted-texts.js';
import type { Messages } from './messages.js';
import { type TextKey, TEXT_KEYS } from './text-keys.js';

/** Texts worded anew, by dotted key (./text-keys.ts; `<key>#<category>` for a count): checked before they get here. */
export type Wordings = Readonly<Record<string, string>>;

const PLACEHOLDER = /\{(\d+)\}/;

/**
 * A template's text with its placeholders filled in. The template's own words are text, never
 * markup: in a markup text they are escaped, and a parameter is escaped unless it is markup.
 */
function fill(template: string, args: readonly unknown[], markup: boolean): string {
  const parts = template.split(PLACEHOLDER);
  return parts
    .map((part, index) => {
      if (index % 2 === 0) return markup ? escapeHtml(part) : part;
      const arg = args[Number(part)];
      if (!markup || arg instanceof SafeHtml) return String(arg);
      return escapeHtml(String(arg));
    })
    .join('');
}

/** A text's templates: its own, and a count's by plural category. */
interface Templates {
  plain?: string;
  byCategory: Map<string, string>;
}

/** What stands for the catalogue's `original` text: of its kind (a text, markup, a function of its parameters). */
function replacement(original: unknown, known: TextKey, templates: Templates, locale: string): unknown {
  if (known.number) {
    return numberedReplacement(original as (value: number) => string, locale, known.number, templates, (template, args) => fill(template, args, false));
  }
  const template = templates.plain;
  if (template === undefined) return original;
  const { markup } = known;
  if (typeof original === 'function') {
    // A parameter left out (a mail to an address not yet confirmed names no one) leaves nothing
    // to put in its place: the catalogue's own text, which words that case, stands then.
    return (...args: unknown[]) => {
      if (args.some((arg) => arg === undefined)) return (original as (...args: unknown[]) => unknown)(...args);
      const text = fill(template, args, markup);
      return markup ? new SafeHtml(text) : text;
    };
  }
  return markup ? new SafeHtml(escapeHtml(template)) : template;
}

function withText(node: Readonly<Record<string, unknown>>, path: readonly string[], value: (original: unknown) => unknown): Record<string, unknown> {
  const [head, ...rest] = path as [string, ...string[]];
  const current = node[head];
  const next = rest.length === 0 ? value(current) : withText(current as Record<string, unknown>, rest, value);
  return { ...node, [head]: next };
}

/** The wordings by the text they word: a count's templates of every category together. */
function templatesByText(wordings: Wordings): Map<string, Templates> {
  const byText = new Map<string, Templates>();
  for (const [written, template] of Object.entries(wordings)) {
    const { key, category } = splitCountedKey(written);
    let templates = byText.get(key);
    if (!templates) byText.set(key, (templates = { byCategory: new Map() }));
    if (category === undefined) templates.plain = template;
    else templates.byCategory.set(category, template);
  }
  return byText;
}

/**
 * `base` with the texts of `wordings` in place of its own: a key that is not a text of the
 * catalogue is passed over (it was refused when it was stored, or is of an older version).
 */
export function worded(base: Messages, wordings: Wordings): Messages {
  let messages: Record<string, unknown> = base;
  for (const [key, templates] of templatesByText(wordings)) {
    const known = TEXT_KEYS.get(key);
    if (!known) continue;
    messages = withText(messages, key.split('.'), (original) => replacement(original, known, templates, base.lang));
  }
  return messages as Messages;
}
