import type { FastifyRequest } from 'fastify';
import { SUPPORTED_LOCALES, type Locale } from '../records/locales.js';
import { type SafeHtml, html } from './html.js';
import type { Messages } from './i18n/index.js';

/** Each language by its own name: whoever cannot read the page's language still finds theirs. */
const AUTONYMS: Readonly<Record<Locale, string>> = { en: 'English', de: 'Deutsch', fr: 'Français' };

/**
 * What a page's address must keep for the same page to come back in another language: its
 * query, or for a page that answered a form, the form's fields that name what it is about.
 */
const CARRIED_FORM_FIELDS = ['transaction', 'ticket', 'user_code'] as const;

function addressParams(request: FastifyRequest): URLSearchParams {
  const carried = new URLSearchParams();
  const source = request.method === 'GET' ? request.query : request.body;
  if (typeof source !== 'object' || source === null) return carried;
  const fields = request.method === 'GET' ? Object.keys(source) : CARRIED_FORM_FIELDS;
  for (const name of fields) {
    const value = (source as Record<string, unknown>)[name];
    if (typeof value === 'string' && name !== 'ui_locales') carried.append(name, value);
  }
  return carried;
}

/**
 * The language picker (CONTRACT.md §16): one link per language the realm offers, to this page
 * with `ui_locales`, which the sign-in and the session then keep (src/authn/followed-locale.ts).
 * Links work without script and with the keyboard; none when the realm offers one language.
 */
export function languagePicker(request: FastifyRequest, t: Messages): SafeHtml | string {
  const realm = request.realm as FastifyRequest['realm'] | null;
  const offered = realm?.settings.locales ?? SUPPORTED_LOCALES;
  if (offered.length < 2) return '';
  const params = addressParams(request);
  const links = offered.map((locale) => {
    params.set('ui_locales', locale);
    const current = locale === t.lang ? html` aria-current="true"` : '';
    return html`<li><a href="?${params.toString()}" hreflang="${locale}" lang="${locale}"${current}>${AUTONYMS[locale]}</a></li>`;
  });
  return html`<nav class="languages" aria-label="${t.languages.label}"><ul>${links}</ul></nav>`;
}
