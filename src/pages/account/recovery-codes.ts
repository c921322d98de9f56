import { type SafeHtml, html } from '../html.js';
import type { Messages } from '../i18n/index.js';
import { noticeBox } from '../parts.js';
import { type AccountForm, csrfInput } from './form.js';
import type { AccountSubpage } from './page.js';

/** `any`: whether the person has codes at all, used ones included: someone who never had any is not told they have none left. */
export function recoveryCodesSectionBody(t: Messages, view: { left: number; any: boolean; generate: AccountForm }): SafeHtml {
  const texts = t.account.recoveryCodes;
  const state = !view.any ? texts.never : view.left === 0 ? texts.noneLeft : texts.left(view.left);
  return html`<p class="recovery-codes-left">${state}</p>
<form method="post" action="${view.generate.action}">
${csrfInput(view.generate.csrf)}
<button type="submit">${view.any ? texts.generate : texts.generateFirst}</button>
</form>`;
}

/** New codes, shown this once. */
export function newRecoveryCodesPage(t: Messages, codes: readonly string[]): AccountSubpage {
  const texts = t.account.recoveryCodes;
  return {
    title: texts.title,
    body: html`${noticeBox(texts.created)}
<p>${texts.keepSafe}</p>
<ul class="recovery-codes">
${codes.map((code) => html`<li><code>${code}</code></li>\n`)}</ul>`,
  };
}
