import { html } from '../html.js';
import type { Messages } from '../i18n/index.js';
import type { Page } from '../layout.js';
import { noticeBox } from '../parts.js';

/** Where a done page leads next. */
export interface NextLink {
  readonly href: string;
  readonly text: string;
}

/**
 * The end of a self-service page (CONTRACT.md §9): what happened, or why nothing could (a
 * link used or expired), and where to go next.
 */
export function donePage(t: Messages, view: { title: string; message: string; failed?: boolean; status?: number; next?: NextLink | undefined }): Page {
  const message = view.failed ? html`<p class="error" role="alert">${view.message}</p>` : noticeBox(view.message);
  return {
    options: { t, title: view.title, status: view.status ?? (view.failed ? 400 : 200) },
    body: html`${message}
${view.next ? html`<p><a href="${view.next.href}">${view.next.text}</a></p>` : ''}`,
  };
}
