import type { FastifyRequest } from 'fastify';
import { type Messages, messagesIn } from '../pages/i18n/index.js';
import { type Locale, SUPPORTED_LOCALES, negotiateLocale, parseUiLocales, pickLocale } from '../records/locales.js';

/*
 * Per-request state, learnt halfway through a handler and read by whatever answers it (the error
 * handler's page included): so it rides on the request.
 */
declare module 'fastify' {
  interface FastifyRequest {
    /** The `ui_locales` of the page's own address: the language picker's links, a mail's link (CONTRACT.md §16). */
    chosenLocales?: readonly string[];
    /** The `ui_locales` of the sign-in a request continues (AuthorizationFlow.resume), or of the request itself (/authorize). */
    uiLocales?: readonly string[];
    /** The language of the browser's session at the realm, once a page has read it. */
    sessionLocale?: Locale;
  }
}

/** Notes on the request the languages the sign-in it belongs to asked for, most preferred first. */
export function askForLocales(request: FastifyRequest, uiLocales: readonly string[] | undefined): void {
  if (uiLocales !== undefined && uiLocales.length > 0) request.uiLocales = uiLocales;
}

/** Notes on the request the languages its own address asks for (`?ui_locales=`), for a page's language picker. */
export function noteChosenLocales(request: FastifyRequest): void {
  const query = request.query as Record<string, unknown> | undefined;
  const asked = query?.ui_locales;
  const tags = typeof asked === 'string' ? parseUiLocales(asked) : undefined;
  if (tags !== undefined) request.chosenLocales = tags;
}

const offeredOf = (request: FastifyRequest): readonly Locale[] =>
  // A request that failed before its realm was known (an unknown realm) is offered every language.
  (request.realm as FastifyRequest['realm'] | null)?.settings.locales ?? SUPPORTED_LOCALES;

/** The offered language the page's own address chose, if it chose one: what the flow and the session keep. */
export const chosenLocaleOf = (request: FastifyRequest): Locale | undefined => pickLocale(request.chosenLocales ?? [], offeredOf(request));

/**
 * The language a person chose for the pages that follow, if they chose one: by an address
 * (`ui_locales`, the picker), the sign-in's request, or earlier in the session. The browser's
 * `Accept-Language` is no choice to keep: it comes with every request anyway.
 */
export const chosenForLaterOf = (request: FastifyRequest): Locale | undefined =>
  pickLocale([...(request.chosenLocales ?? []), ...(request.uiLocales ?? []), ...(request.sessionLocale ? [request.sessionLocale] : [])], offeredOf(request));

/**
 * The language of the page a request is answered with (CONTRACT.md §10, §16): the one its
 * address chose, then the sign-in's, then the session's, then `Accept-Language`, among the
 * realm's `locales`; else the realm's first.
 */
export function localeOf(request: FastifyRequest): Locale {
  const asked = [...(request.chosenLocales ?? []), ...(request.uiLocales ?? []), ...(request.sessionLocale ? [request.sessionLocale] : [])];
  return negotiateLocale({ uiLocales: asked, acceptLanguage: request.headers['accept-language'], offered: offeredOf(request) });
}

/** The catalogue of the page a request is answered with. */
export const messagesOf = (request: FastifyRequest): Messages =>
  messagesIn(localeOf(request), (request.realm as FastifyRequest['realm'] | null)?.texts);
