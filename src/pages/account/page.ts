import { type SafeHtml, html } from '../html.js';
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

/** "5 minutes", "1 hour", "90 seconds": the realm's window as a person reads it. */
export function durationText(seconds: number): string {
  const [amount, unit] = seconds % 3600 === 0 ? [seconds / 3600, 'hour'] : seconds % 60 === 0 ? [seconds / 60, 'minute'] : [seconds, 'second'];
  return `${amount} ${unit}${amount === 1 ? '' : 's'}`;
}

/** The account page (`{issuer}/account`): who is signed in, and each section. */
export function accountOverviewPage(view: {
  realm: string;
  username: string;
  notice: string | undefined;
  /** The realm's `reauthentication_max_age`, when the sign-in is older: a credential change signs the person in again first. */
  signInAgainAfter: number | undefined;
  sections: readonly AccountSectionPart[];
  /** Same-origin scripts the sections need (passkeys); the rest of the page works without JavaScript. */
  scripts: readonly string[];
}): Page {
  const signInAgain =
    view.signInAgainAfter === undefined
      ? ''
      : html`<p class="reauthentication">You signed in more than ${durationText(view.signInAgainAfter)} ago: to change how you sign in, you will be asked to sign in again first.</p>
`;
  return {
    options: { title: 'Your account', realm: view.realm, ...(view.scripts.length > 0 ? { scripts: view.scripts } : {}) },
    body: html`${view.notice ? html`${noticeBox(view.notice)}\n` : ''}<p>Signed in as <strong>${view.username}</strong>.</p>
${signInAgain}${view.sections.filter((section) => section.body !== undefined).map(
      (section) => html`<section class="account">
<h2>${section.title}</h2>
${section.body}
</section>
`,
    )}`,
  };
}

/** A page of its own, with the way back to the account page. */
export function accountSubpage(view: { realm: string; accountUrl: string; page: AccountSubpage }): Page {
  return {
    options: { title: view.page.title, realm: view.realm },
    body: html`${view.page.body}
<p><a href="${view.accountUrl}">Back to your account</a></p>`,
  };
}
