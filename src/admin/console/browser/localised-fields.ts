/**
 * The admin console's localised-fields module: a text written once per language of the pages
 * (English, German, French), as a client's `client_names` and a scope's or resource's
 * `descriptions` hold it (CONTRACT.md §16). A language left empty is not held: the pages fall
 * back to the record's plain text.
 */
import { field, h, valueOf } from './dom.js';
import { t, translatable } from './i18n.js';

export type LocalisedTexts = Readonly<Record<string, string>>;

/** The languages the pages ship in, with their names (translated where they are shown). */
const LANGUAGES = [
  ['en', translatable('English')],
  ['de', translatable('German')],
  ['fr', translatable('French')],
] as const;

const nameOf = (prefix: string, locale: string) => prefix + '#' + locale;

/** A fieldset of one input per language, named `{prefix}#{locale}`, filled from `texts`. */
export function localisedFields(legend: string, prefix: string, texts: LocalisedTexts | null | undefined, hint: string, maxlength: number): HTMLFieldSetElement {
  return h(
    'fieldset',
    { class: 'localised' },
    h('legend', {}, legend),
    h('p', { class: 'note' }, hint),
    LANGUAGES.map(([locale, language]) =>
      field(t(language), h('input', { name: nameOf(prefix, locale), lang: locale, maxlength, autocomplete: 'off', value: texts?.[locale] ?? '' })),
    ),
  );
}

/** What the inputs say, trimmed; an empty one left out. */
export function localisedOf(form: HTMLFormElement, prefix: string): Record<string, string> {
  return Object.fromEntries(
    LANGUAGES.map(([locale]) => [locale, valueOf(form, nameOf(prefix, locale)).trim()] as const).filter(([, text]) => text !== ''),
  );
}

/** Fills the inputs from `texts` (none: empties them). */
export function setLocalised(form: HTMLFormElement, prefix: string, texts: LocalisedTexts | null | undefined): void {
  for (const [locale] of LANGUAGES) (form.elements.namedItem(nameOf(prefix, locale)) as HTMLInputElement).value = texts?.[locale] ?? '';
}
