/**
 * The admin console's fields of a realm's texts: one text area per text a realm may word anew
 * (GET …/texts/{locale}/catalogue), grouped by area (the key's first segment), the shipped
 * words as its placeholder and its hint, and the filter that shows those that match.
 */
import { field, h } from './dom.js';
import { t } from './i18n.js';

/** A text of the catalogue as the admin API lists it. */
export interface CatalogueText {
  readonly key: string;
  readonly text: string;
  readonly placeholders: number;
  readonly number?: 'count' | 'duration';
}

export interface TextCatalogue {
  readonly locale: string;
  readonly plural_categories: readonly string[];
  readonly texts: readonly CatalogueText[];
}

/** The areas of the catalogue by their key's first segment, in the person's words; an area not named here shows its segment. */
const AREAS: Readonly<Record<string, () => string>> = {
  page: () => t('Every page'),
  languages: () => t('Language picker'),
  landing: () => t('Landing page'),
  actions: () => t('Buttons'),
  errors: () => t('Error pages'),
  signIn: () => t('Sign-in'),
  passkey: () => t('Passkeys at sign-in'),
  oneTimeCode: () => t('One-time codes'),
  enrolmentCode: () => t('Codes by mail'),
  emailVerification: () => t('Email confirmation at sign-in'),
  consent: () => t('Consent'),
  scopes: () => t('Built-in scopes'),
  signOut: () => t('Sign-out'),
  formPost: () => t('Return to the application'),
  device: () => t('Device sign-in'),
  ciba: () => t('Requests from other devices (CIBA)'),
  account: () => t('Account page'),
  register: () => t('Registration'),
  passwordPolicy: () => t('Password rules'),
  reset: () => t('Password reset'),
  verify: () => t('Email confirmation'),
  upstream: () => t('Other identity providers'),
  mail: () => t('Mails'),
};

export const areaOf = (key: string): string => key.split('.')[0]!;
const areaName = (area: string): string => AREAS[area]?.() ?? area;

/** What the placeholders of a text stand for, said under it. */
function placeholderHint(text: CatalogueText, categories: readonly string[]): string | null {
  if (text.number === 'count') {
    const category = text.key.split('#')[1];
    return category === undefined
      ? t('{0} is the number. This text stands for every count.')
      : t('{0} is the number. Used for the counts of the plural category “{category}” (the language has {categories}).', { category, categories: categories.join(', ') });
  }
  if (text.number === 'duration') return t('{0} is the length of time in words, e.g. “5 minutes”.');
  if (text.placeholders === 0) return null;
  const kept = Array.from({ length: text.placeholders }, (_, index) => '{' + index + '}').join(', ');
  return t('Keep {placeholders}: the page fills in a name there.', { placeholders: kept });
}

/** One text: its area, the control that holds the realm's words, and the element that shows or hides it. */
export interface TextEntry {
  readonly text: CatalogueText;
  readonly control: HTMLTextAreaElement;
  readonly element: HTMLElement;
  readonly reset: HTMLButtonElement;
}

/**
 * The text areas of every text of the catalogue, and of the texts the realm stores that the
 * catalogue does not list in this language (the plain key of a count), so that saving keeps them.
 */
export function textEntries(catalogue: TextCatalogue, stored: Readonly<Record<string, string>>, onReset: (key: string) => void): TextEntry[] {
  const listed = new Set(catalogue.texts.map((text) => text.key));
  const extra = Object.keys(stored)
    .filter((key) => !listed.has(key))
    .map((key): CatalogueText => ({ key, text: '', placeholders: 0 }));
  return [...catalogue.texts, ...extra].map((text) => {
    const control = h('textarea', { name: text.key, rows: 2, placeholder: text.text, spellcheck: 'true', value: stored[text.key] ?? '' });
    const reset = h('button', { type: 'button', 'data-operation': 'putTexts', 'aria-label': t('Reset {key}', { key: text.key }), onclick: () => onReset(text.key) }, t('Reset'));
    reset.hidden = stored[text.key] === undefined;
    const shipped = text.text === '' ? t('Not a text of this language’s catalogue: kept as stored.') : t('Shipped: {text}', { text: text.text });
    const hint = [shipped, placeholderHint(text, catalogue.plural_categories)].filter(Boolean).join(' ');
    const element = h('div', { class: 'text-entry' }, field(text.key, control, hint), reset);
    return { text, control, element, reset };
  });
}

/** The entries as fieldsets by area, each with its name as the legend, in the catalogue's order. */
export function areaFieldsets(entries: readonly TextEntry[]): HTMLFieldSetElement[] {
  const byArea = new Map<string, TextEntry[]>();
  for (const entry of entries) {
    const area = areaOf(entry.text.key);
    byArea.set(area, [...(byArea.get(area) ?? []), entry]);
  }
  return [...byArea].map(([area, inArea]) =>
    h('fieldset', { 'data-area': area }, h('legend', {}, areaName(area) + ' (' + area + ')'), inArea.map((entry) => entry.element)),
  );
}

/** Shows the entries whose key, shipped words or own words hold `query` (any case), and the areas that have one; answers how many. */
export function filterEntries(entries: readonly TextEntry[], fieldsets: readonly HTMLFieldSetElement[], query: string): number {
  const needle = query.trim().toLowerCase();
  let shown = 0;
  for (const entry of entries) {
    const match = needle === '' || [entry.text.key, entry.text.text, entry.control.value].some((value) => value.toLowerCase().includes(needle));
    entry.element.hidden = !match;
    if (match) shown += 1;
  }
  for (const fieldset of fieldsets) fieldset.hidden = [...fieldset.querySelectorAll<HTMLElement>('.text-entry')].every((element) => element.hidden);
  return shown;
}

/** The keys a refusal of the server names (`body.<key>: …`), to mark their fields. */
export function refusedKeys(description: string): string[] {
  return [...description.matchAll(/(?:^|; )body\.([^:]+):/g)].map((match) => match[1]!);
}
