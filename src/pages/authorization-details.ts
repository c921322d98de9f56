import type { DescribedDetail, ShownField, ShownValue } from '../authorization-details/described.js';
import { type SafeHtml, html } from './html.js';
import type { Messages } from './i18n/index.js';

/**
 * RFC 9396 §3: what the application asks to do, entry by entry, on the consent page: the type's
 * title, then each field the realm marked for people, as a term and its value in the page's
 * language (numbers grouped as the language writes them, yes and no as words).
 */
export function detailsList(t: Messages, details: readonly DescribedDetail[]): SafeHtml {
  return html`<p>${t.consent.inDetail}</p>
<ul class="scopes authorization-details">${details.map((detail) => html`<li><strong>${detail.title}</strong>${fieldList(t, detail.fields)}</li>`)}</ul>
`;
}

function fieldList(t: Messages, fields: readonly ShownField[]): SafeHtml | string {
  if (fields.length === 0) return '';
  return html`<dl class="details">${fields.map((field) => html`<dt>${field.label}</dt><dd>${worded(t, field.value)}</dd>`)}</dl>`;
}

function worded(t: Messages, value: ShownValue): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return new Intl.NumberFormat(t.lang, { maximumFractionDigits: 20 }).format(value);
  if (typeof value === 'boolean') return value ? t.consent.yes : t.consent.no;
  if (Array.isArray(value)) return (value as readonly ShownValue[]).map((item) => worded(t, item)).join(', ');
  return (value as { fields: readonly ShownField[] }).fields.map((field) => `${field.label}: ${worded(t, field.value)}`).join('; ');
}
