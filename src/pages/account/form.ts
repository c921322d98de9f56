import { SafeHtml, escapeHtml, html } from '../html.js';
import type { Messages } from '../i18n/index.js';

/** A form of the account pages: where it posts, and the CSRF token bound to that action. */
export interface AccountForm {
  readonly action: string;
  readonly csrf: string;
}

export const csrfInput = (csrf: string) => html`<input type="hidden" name="csrf" value="${csrf}">`;

/** `minute`: a date and time; `day`: a date alone. */
export type DateStyle = 'minute' | 'day';

const FORMATS: Readonly<Record<DateStyle, Intl.DateTimeFormatOptions>> = {
  // Intl takes no timeZoneName beside dateStyle: the fields are named one by one.
  minute: { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZone: 'UTC', timeZoneName: 'short' },
  day: { dateStyle: 'medium', timeZone: 'UTC' },
};

/**
 * A date as the page's language writes it, in a `<time>`: the server knows no time zone and
 * writes UTC, named; the page's script (src/pages/assets/browser/page.ts) writes it again in the
 * browser's time zone.
 */
export function localDate(t: Messages, date: Date, style: DateStyle = 'minute'): SafeHtml {
  const written = new Intl.DateTimeFormat(t.lang, FORMATS[style]).format(date);
  return html`<time datetime="${date.toISOString()}" data-local="${style}">${written}</time>`;
}

/** Marks where the n-th date goes in a catalogue's text (private-use characters: no text holds them). */
const mark = (n: number) => `\u{E000}${n}\u{E001}`;
const MARKS = /\u{E000}(\d+)\u{E001}/u;

/**
 * A catalogue text with dates in it (`(when) => \`added ${when}\``): the text is written with
 * marks where the dates go, escaped, and each mark replaced by the date's `<time>`.
 */
export function textWithDates(t: Messages, dates: readonly Date[], text: (...written: string[]) => string, style: DateStyle = 'minute'): SafeHtml {
  const parts = text(...dates.map((_, n) => mark(n))).split(MARKS);
  const out = parts.map((part, i) => (i % 2 === 0 ? escapeHtml(part) : localDate(t, dates[Number(part)]!, style).value)).join('');
  return new SafeHtml(out);
}
