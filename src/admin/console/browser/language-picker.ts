/**
 * The admin console's language picker (CONTRACT.md §16): a labelled `select[name=locale]` in the
 * header. A choice is kept (i18n.ts) and the console drawn again at once, on the same view.
 */
import { h } from './dom.js';
import { CONSOLE_LOCALES, CONSOLE_LOCALE_NAMES, chooseConsoleLocale, consoleLocale, isConsoleLocale, t } from './i18n.js';

/** The picker, its label in the console's language; `redraw` runs after each choice. */
export function languagePicker(redraw: () => void): HTMLElement {
  const select = h(
    'select',
    { name: 'locale', id: 'console-locale' },
    // Each language in its own words, and marked as such for a screen reader.
    CONSOLE_LOCALES.map((locale) => h('option', { value: locale, lang: locale, selected: locale === consoleLocale() }, CONSOLE_LOCALE_NAMES[locale])),
  );
  // Beside the select rather than around it, so that the label alone names it.
  const label = h('label', { for: 'console-locale' }, t('Language'));
  select.addEventListener('change', () => {
    if (!isConsoleLocale(select.value)) return;
    chooseConsoleLocale(select.value);
    label.textContent = t('Language');
    redraw();
    // The view drawn again may focus a field of its own (the token's): the keyboard stays here, to go on choosing.
    select.focus();
  });
  return h('span', { class: 'locale' }, label, select);
}
