import { type SafeHtml, html } from '../html.js';
import type { Messages } from '../i18n/index.js';
import type { Page } from '../layout.js';
import { noticeBox } from '../parts.js';

/** A section of the account page, its body rendered by the section's template. */
export interface AccountSectionPart {
  readonly title: string;
  /** Undefined: the section is left out. */
  readonly body: SafeHtml | undefined;
}

/** A page of its own below the account page: what is shown once (a secret, recovery codes) or asked for (a first code). */
export interface AccountSubpage {
  readonly title: string;
  readonly body: SafeHtml;
}

/** The account page (`{issuer}/account`): who is signed in, and each section. */
export function accountOverviewPage(
  t: Messages,
  view: {
    username: string;
    notice: string | undefined;
    /** The realm's `reauthentication_max_age`, when the sign-in is older: a credential change signs the person in again first. */
    signInAgainAfter: number | undefined;
    sections: readonly AccountSectionPart[];
    /** Same-origin scripts the sections need (passkeys); the rest of the page works without JavaScript. */
    scripts: readonly string[];
    /** Where forms lead beyond the realm (an upstream provider a link form goes to). */
    formTargets: readonly string[];
  },
): Page {
  const signInAgain =
    view.signInAgainAfter === undefined ? '' : html`<p class="reauthentication">${t.account.signInAgainFirst(view.signInAgainAfter)}</p>
`;
  return {
    options: { t, title: t.account.title, wide: true, formTargets: view.formTargets, ...(view.scripts.length > 0 ? { scripts: view.scripts } : {}) },
    body: html`${view.notice ? html`${noticeBox(view.notice)}\n` : ''}<p>${t.account.signedInAs(html`<strong>${view.username}</strong>`)}</p>
${signInAgain}<div class="columns">
${view.sections.filter((section) => section.body !== undefined).map(
      (section) => html`<section class="account">
<h2>${section.title}</h2>
${section.body}
</section>
`,
    )}</div>`,
  };
}

/** A page of its own, with the way back to the account page. */
export function accountSubpage(t: Messages, view: { accountUrl: string; page: AccountSubpage }): Page {
  return {
    options: { t, title: view.page.title },
    body: html`${view.page.body}
<p><a href="${view.accountUrl}">${t.actions.backToAccount}</a></p>`,
  };
}
