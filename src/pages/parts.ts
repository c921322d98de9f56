import type { Locale, LocalisedTexts } from '../records/locales.js';
import { BUILTIN_SCOPES } from '../records/scope.js';
import { type SafeHtml, html } from './html.js';
import type { Messages } from './i18n/index.js';

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
  /** The description per language an admin gave. */
  descriptions?: LocalisedTexts | undefined;
}

const BUILTIN_DESCRIPTIONS: ReadonlyMap<string, string> = new Map(BUILTIN_SCOPES.map((scope) => [scope.name, scope.description]));

/**
 * A scope's description in the page's language: the one an admin gave in it (CONTRACT.md §16),
 * else a built-in scope's own while the realm keeps the description it came with; what an admin
 * wrote stays as written.
 */
function describedIn(t: Messages, scope: ScopeView): string {
  const given = scope.descriptions?.[t.lang as Locale];
  if (given !== undefined && given !== '') return given;
  const builtIn = BUILTIN_DESCRIPTIONS.get(scope.name);
  if (builtIn !== undefined && scope.description === builtIn && Object.hasOwn(t.scopes, scope.name)) return t.scopes[scope.name as keyof Messages['scopes']];
  return scope.description;
}

/**
 * The items of a list of scopes asked for: each leads with its description in the person's
 * language, its id after it for whoever looks for it; a scope without a description by its id.
 */
export function scopeItems(t: Messages, scopes: readonly ScopeView[]): SafeHtml[] {
  return scopes.map((scope) => {
    const description = describedIn(t, scope);
    if (!description) return html`<li><strong>${scope.name}</strong></li>`;
    // It begins the line now: a description worded to follow "scope: " gets its capital.
    const leading = description.charAt(0).toLocaleUpperCase(t.lang) + description.slice(1);
    return html`<li><strong>${leading}</strong> <span class="scope-id">${scope.name}</span></li>`;
  });
}

/** What the server says happened (a change made, an answer recorded). */
export function noticeBox(message: string): SafeHtml {
  return html`<p class="notice" role="status">${message}</p>`;
}
