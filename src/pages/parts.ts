import { type SafeHtml, html } from './html.js';

/** The hidden inputs a form carries (CONTRACT.md §4). */
export function hiddenFields(fields: Readonly<Record<string, string>>): SafeHtml[] {
  return Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
}

export function errorBox(message: string | undefined): SafeHtml | undefined {
  return message === undefined ? undefined : html`<p class="error" role="alert">${message}</p>`;
}

/** A scope asked for, as the person reads it. */
export interface ScopeView {
  name: string;
  description: string;
}

/** The items of a list of scopes asked for, each with its description when it has one. */
export function scopeItems(scopes: readonly ScopeView[]): SafeHtml[] {
  return scopes.map((scope) => html`<li><strong>${scope.name}</strong>${scope.description ? html`: ${scope.description}` : ''}</li>`);
}

/** What the server says happened (a change made, an answer recorded). */
export function noticeBox(message: string): SafeHtml {
  return html`<p class="notice" role="status">${message}</p>`;
}
