import type { FastifyRequest } from 'fastify';
import { de } from './de.js';
import { en } from './en.js';
import { fr } from './fr.js';
import { type Locale, SUPPORTED_LOCALES, negotiateLocale } from '../../records/locales.js';
import type { Messages } from './messages.js';

export { type Locale, SUPPORTED_LOCALES, isLocale, parseUiLocales } from '../../records/locales.js';
export type { Messages, Text } from './messages.js';

const CATALOGUES: Readonly<Record<Locale, Messages>> = { en, de, fr };

export const messagesIn = (locale: Locale): Messages => CATALOGUES[locale];

declare module 'fastify' {
  interface FastifyRequest {
    /** The `ui_locales` of the sign-in a request continues (AuthorizationFlow.resume), or of the request itself (/authorize). */
    uiLocales?: readonly string[];
  }
}

/** Notes on the request the languages the sign-in it belongs to asked for, most preferred first. */
export function askForLocales(request: FastifyRequest, uiLocales: readonly string[] | undefined): void {
  if (uiLocales !== undefined && uiLocales.length > 0) request.uiLocales = uiLocales;
}

/**
 * The language of the page a request is answered with (CONTRACT.md §10): the sign-in's
 * `ui_locales`, then `Accept-Language`, among the realm's `locales`; else the realm's first.
 */
export function localeOf(request: FastifyRequest): Locale {
  // A request that failed before its realm was known (an unknown realm) is offered every language.
  const offered = (request.realm as FastifyRequest['realm'] | null)?.settings.locales ?? SUPPORTED_LOCALES;
  return negotiateLocale({ uiLocales: request.uiLocales, acceptLanguage: request.headers['accept-language'], offered });
}

/** The catalogue of the page a request is answered with. */
export const messagesOf = (request: FastifyRequest): Messages => CATALOGUES[localeOf(request)];
