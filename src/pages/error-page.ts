import { html } from './html.js';
import type { Messages } from './i18n/index.js';
import type { Page } from './layout.js';

/** The way back to the application that sent the person: its name, and an address it registered. */
export interface WayBack {
  readonly clientName: string;
  readonly url: string;
}

/**
 * A page that cannot go on (CONTRACT.md §16): what happened, the reference the server's log
 * holds for the request (for the person to quote to support), and the way back to the
 * application when it and its redirect URI are known and registered.
 */
export function errorPage(t: Messages, input: { title: string; message: string; status: number; reference: string; wayBack: WayBack | undefined }): Page {
  return {
    options: { t, title: input.title, status: input.status },
    body: html`<p class="error" role="alert">${input.message}</p>
${input.wayBack ? html`<p><a class="back-to-application" href="${input.wayBack.url}">${t.errors.backToApplication(input.wayBack.clientName)}</a></p>
` : ''}<p class="reference">${t.errors.reference(html`<code>${input.reference}</code>`)}</p>`,
  };
}
