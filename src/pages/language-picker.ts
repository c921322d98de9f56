import type { Locale } from '../records/locales.js';
import { type SafeHtml, html } from './html.js';
import type { Messages } from './i18n/index.js';

/** Each language by its own name: whoever cannot read the page's language still finds theirs. */
const AUTONYMS: Readonly<Record<string, string>> = { en: 'English', de: 'Deutsch', fr: 'Français' };

/** A language read from JSON at start names itself as the platform's data has it: `it`, "italiano". */
function autonymOf(locale: Locale): string {
  const known = AUTONYMS[locale];
  if (known !== undefined) return known;
  const name = new Intl.DisplayNames([locale], { type: 'language', fallback: 'code' }).of(locale) ?? locale;
  return name.charAt(0).toLocaleUpperCase(locale) + name.slice(1);
}

/**
 * The language picker (CONTRACT.md §16): one link per language the realm offers, to this page
 * with `ui_locales`, which the sign-in and the session then keep (src/web/followed-locale.ts).
 * `address` is what the page's address must keep for the same page to come back in another
 * language (src/web/send-page.ts). Links work without script and with the keyboard; none when
 * the realm offers one language.
 */
export function languagePicker(offered: readonly Locale[], address: URLSearchParams, t: Messages): SafeHtml | string {
  if (offered.length < 2) return '';
  const params = new URLSearchParams(address);
  const links = offered.map((locale) => {
    params.set('ui_locales', locale);
    const current = locale === t.lang ? html` aria-current="true"` : '';
    return html`<li><a href="?${params.toString()}" hreflang="${locale}" lang="${locale}"${current}>${autonymOf(locale)}</a></li>`;
  });
  return html`<nav class="languages" aria-label="${t.languages.label}"><ul>${links}</ul></nav>`;
}
