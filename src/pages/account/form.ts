import { html } from '../html.js';

/** A form of the account pages: where it posts, and the CSRF token bound to that action. */
export interface AccountForm {
  readonly action: string;
  readonly csrf: string;
}

export const csrfInput = (csrf: string) => html`<input type="hidden" name="csrf" value="${csrf}">`;

/** Server time in UTC, to the minute: the page is the same for every reader. */
export const utcMinute = (date: Date): string => `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

export const utcDay = (date: Date): string => date.toISOString().slice(0, 10);
