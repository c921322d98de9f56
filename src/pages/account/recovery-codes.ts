import { type SafeHtml, html } from '../html.js';
import { noticeBox } from '../parts.js';
import { type AccountForm, csrfInput } from './form.js';
import type { AccountSubpage } from './page.js';

export function recoveryCodesSectionBody(view: { left: number; generate: AccountForm }): SafeHtml {
  const status =
    view.left === 0
      ? 'You have no recovery codes left.'
      : `You have ${view.left} unused recovery code${view.left === 1 ? '' : 's'}. Each works once, instead of a one-time code.`;
  return html`<p class="recovery-codes-left">${status}</p>
<form method="post" action="${view.generate.action}">
${csrfInput(view.generate.csrf)}
<button type="submit">Generate new codes</button>
</form>`;
}

/** New codes, shown this once. */
export function newRecoveryCodesPage(codes: readonly string[]): AccountSubpage {
  return {
    title: 'Your recovery codes',
    body: html`${noticeBox('New recovery codes created.')}
<p>Keep these codes somewhere safe: they are shown only this once. Each works once, where a one-time code is asked for. Your previous codes no longer work.</p>
<ul class="recovery-codes">
${codes.map((code) => html`<li><code>${code}</code></li>\n`)}</ul>`,
  };
}
