import type { FastifyRequest } from 'fastify';
import { type Messages, messagesIn } from '../pages/i18n/index.js';
import { type Locale, SUPPORTED_LOCALES, negotiateLocale } from '../records/locales.js';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The `ui_locales` of the sign-in a request continues (AuthorizationFlow.resume), or of the
     * request itself (/authorize). Per-request state, learnt halfway through a handler and read
     * by whatever answers it (the error handler's page included): so it rides on the request.
     */
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
export const messagesOf = (request: FastifyRequest): Messages => messagesIn(localeOf(request));
