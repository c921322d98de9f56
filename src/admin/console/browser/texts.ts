/**
 * The admin console's texts module: a realm's own words for its pages and mails in one
 * language (CONTRACT.md §16, `…/texts/{locale}`). The language is the URL's record
 * (`#/realms/{realm}/texts/de`); every text of the catalogue is shown by area with the shipped
 * words, filtered as typed, saved as the language's whole set, reset one by one, or removed.
 */
import { ApiError, call } from './api.js';
import { confirmed, field, guarded, h, say } from './dom.js';
import { t } from './i18n.js';
import { type TextCatalogue, type TextEntry, areaFieldsets, filterEntries, refusedKeys, textEntries } from './texts-fields.js';

const LANGUAGES = ['en', 'de', 'fr'] as const;

/** A language by its own name ("Deutsch"), as a language picker names it. */
const autonym = (locale: string): string => {
  const name = new Intl.DisplayNames([locale], { type: 'language' }).of(locale) ?? locale;
  return name.charAt(0).toLocaleUpperCase(locale) + name.slice(1);
};

type Texts = Record<string, string>;

export async function textsView(realm: string, panel: HTMLElement, record?: string) {
  const locale = LANGUAGES.find((language) => language === record) ?? 'en';
  const path = '/realms/' + encodeURIComponent(realm) + '/texts/' + locale;
  const [catalogue, initial] = await Promise.all([call<TextCatalogue>('GET', path + '/catalogue'), call<Texts>('GET', path)]);
  let stored: Texts = initial;
  const language = autonym(locale);

  const entries: TextEntry[] = textEntries(catalogue, stored, (key) => void resetOne(key));
  const fieldsets = areaFieldsets(entries);

  const picker = h(
    'select',
    {
      name: 'texts-locale',
      onchange: (event: Event) => {
        location.hash = '#/realms/' + encodeURIComponent(realm) + '/texts/' + (event.currentTarget as HTMLSelectElement).value;
      },
    },
    LANGUAGES.map((code) => h('option', { value: code, lang: code, selected: code === locale }, autonym(code))),
  );
  const filter = h('input', { type: 'search', name: 'filter', autocomplete: 'off', placeholder: t('e.g. signIn, password or a word of the text') });
  const count = h('p', { class: 'note', role: 'status', 'aria-live': 'polite' });
  const showCount = () => {
    const shown = filterEntries(entries, fieldsets, filter.value);
    count.textContent = t('{shown} of {total} texts shown.', { shown, total: entries.length });
  };
  filter.addEventListener('input', showCount);

  const removeAll = h('button', { type: 'button', class: 'danger', 'data-operation': 'deleteTexts' }, t('Remove all texts in {language}', { language }));
  const form = h(
    'form',
    { 'aria-label': t('Texts in {language}', { language }) },
    fieldsets,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary', 'data-operation': 'putTexts' }, t('Save the texts in {language}', { language })), ' ', removeAll),
  );

  /** The realm's words now in this language: its fields that are not empty. */
  const typed = (): Texts =>
    Object.fromEntries(entries.map((entry) => [entry.text.key, entry.control.value.trim()] as const).filter(([, value]) => value !== ''));

  function showStored(next: Texts): void {
    stored = next;
    for (const entry of entries) entry.reset.hidden = stored[entry.text.key] === undefined;
    // Hidden rather than disabled: a form's call (dom.ts guarded) enables its controls again when it ends.
    removeAll.hidden = Object.keys(stored).length === 0;
  }

  /** A PUT of the language's whole set; a refusal marks the fields it names and is said. */
  async function put(texts: Texts): Promise<Texts> {
    for (const entry of entries) entry.control.removeAttribute('aria-invalid');
    try {
      return await call<Texts>('PUT', path, texts);
    } catch (error) {
      if (error instanceof ApiError && error.status === 400) {
        for (const key of refusedKeys(error.message)) entries.find((entry) => entry.text.key === key)?.control.setAttribute('aria-invalid', 'true');
        throw new Error(t('The server refused the texts: {reason}', { reason: error.message }));
      }
      throw error;
    }
  }

  form.addEventListener('submit', guarded(async () => {
    showStored(await put(typed()));
    say(t('The texts in {language} are saved.', { language }));
  }));

  /** Back to the shipped words for one text: the stored set without it (what is typed elsewhere and not saved stays typed). */
  async function resetOne(key: string): Promise<void> {
    const { [key]: _, ...rest } = stored;
    try {
      showStored(await put(rest));
    } catch (error) {
      return say((error as Error).message, 'error');
    }
    const entry = entries.find((candidate) => candidate.text.key === key);
    if (entry) entry.control.value = '';
    say(t('{key} shows the shipped words again.', { key }));
  }

  removeAll.addEventListener('click', guarded(async () => {
    if (!(await confirmed(t('Remove every text of this realm in {language}? Its pages and mails show the shipped words again.', { language }), t('Remove')))) return;
    await call('DELETE', path);
    for (const entry of entries) entry.control.value = '';
    showStored({});
    say(t('The realm shows the shipped texts in {language} again.', { language }));
  }));

  panel.replaceChildren(
    h('h3', {}, t('Texts of the pages and mails')),
    h('p', { class: 'note' }, t('The realm’s own words replace the shipped ones on its pages and in its mails, in one language at a time. A text left empty keeps the shipped words, shown greyed in its field and under it.')),
    h(
      'p',
      { class: 'note' },
      t('{0}, {1}… stand for what the page fills in and must be kept. A text with a count is worded once per plural category of the language ({categories}), {0} being the number; a text with a length of time once, {0} being the length in words.', {
        categories: catalogue.plural_categories.join(', '),
      }),
    ),
    h('div', { class: 'grid' }, field(t('Language of the texts'), picker), field(t('Filter'), filter, t('Shows the texts whose key or words hold it.'))),
    count,
    form,
  );
  showStored(stored);
  showCount();
}
