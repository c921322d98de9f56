/**
 * The admin console's languages: every word the console shows is written in English and passed
 * through `t`, which gives it in the operator's language from that language's catalogue
 * (locales/), keyed by the English text as gettext does. `{name}` placeholders take `vars`.
 * The language is the one chosen in the console's picker (kept in localStorage), else the
 * browser's first supported one, else English.
 */
import { de } from './locales/de.js';
import { fr } from './locales/fr.js';

export const CONSOLE_LOCALES = ['en', 'de', 'fr'] as const;
export type ConsoleLocale = (typeof CONSOLE_LOCALES)[number];

const CATALOGUES: Record<ConsoleLocale, Readonly<Record<string, string>>> = { en: {}, de, fr };
const STORAGE_KEY = 'realmgate.console.locale';

/** Whether a value names one of the console's languages. */
export const isConsoleLocale = (value: unknown): value is ConsoleLocale => CONSOLE_LOCALES.includes(value as ConsoleLocale);

function storedLocale(): string | null {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

function chosenLocale(): ConsoleLocale {
  const stored = storedLocale();
  if (isConsoleLocale(stored)) return stored;
  const preferred = (navigator.languages ?? [navigator.language]).map((tag) => tag.slice(0, 2).toLowerCase());
  return preferred.find(isConsoleLocale) ?? 'en';
}

let current: ConsoleLocale = typeof navigator === 'undefined' ? 'en' : chosenLocale();

/** The console's language now. */
export const consoleLocale = (): ConsoleLocale => current;

/** Keeps the operator's choice; the caller draws the console again. */
export function chooseConsoleLocale(locale: ConsoleLocale): void {
  current = locale;
  try {
    localStorage.setItem(STORAGE_KEY, locale);
  } catch {
    // A browser that keeps nothing: the choice lasts until the page is left.
  }
  document.documentElement.lang = locale;
}

/** Each language by its own name, as a picker offers it. */
export const CONSOLE_LOCALE_NAMES: Readonly<Record<ConsoleLocale, string>> = { en: 'English', de: 'Deutsch', fr: 'Français' };

/**
 * Marks an English text written where `t` cannot take it as a literal (a list of labels that is
 * translated as it is drawn, `t(label)`), so that the catalogues' check finds it; it returns it
 * unchanged, as gettext's `gettext_noop` does.
 */
export const translatable = (english: string): string => english;

/** `english` in the console's language, its `{name}` placeholders filled from `vars`. */
export function t(english: string, vars: Readonly<Record<string, string | number>> = {}): string {
  const text = CATALOGUES[current][english] ?? english;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (Object.hasOwn(vars, name) ? String(vars[name]) : whole));
}
