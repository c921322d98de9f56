import { de } from './de.js';
import { en } from './en.js';
import { fr } from './fr.js';
import type { Locale } from '../../records/locales.js';
import type { Messages } from './messages.js';

export { type Locale, SUPPORTED_LOCALES, isLocale, parseUiLocales } from '../../records/locales.js';
export type { Messages, Text } from './messages.js';

const CATALOGUES: Readonly<Record<Locale, Messages>> = { en, de, fr };

export const messagesIn = (locale: Locale): Messages => CATALOGUES[locale];
