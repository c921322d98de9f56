import { type SafeHtml, html } from '../html.js';
import { type AccountForm, csrfInput, utcMinute } from './form.js';

/** Every English text of the section, its notices included: the one place to translate. */
export const IDENTITIES_TEXTS = {
  title: 'Linked accounts',
  none: 'No account at another provider is linked to yours.',
  linked: (when: string) => `linked ${when}`,
  /** Told apart by the upstream's identifier when the person has two accounts at one provider. */
  account: (subject: string) => `account ${subject}`,
  unlink: (name: string) => `Unlink ${name}`,
  onlyWay: 'It cannot be unlinked: it is your only way to sign in, as you have no password, passkey or other linked account.',
  unlinked: (name: string) => `${name} is unlinked from your account: you no longer sign in with it.`,
  refusedOnlyWay: (name: string) => `${name} cannot be unlinked: it is your only way to sign in.`,
  notLinked: 'That linked account was not found.',
} as const;

const TEXTS = IDENTITIES_TEXTS;

/** An account at an upstream provider that signs the person in. */
export interface LinkedAccountView {
  /** The provider's alias and the upstream's `sub`, as the unlink form posts them. */
  readonly provider: string;
  readonly subject: string;
  /** The provider's display name, else its alias. */
  readonly name: string;
  /** Whether the person has another account at the same provider, so that the subject tells them apart. */
  readonly showSubject: boolean;
  readonly linkedAt: Date;
}

export interface IdentitiesSectionView {
  readonly links: readonly LinkedAccountView[];
  /** The unlink form of every link (one action, one CSRF token); none while the one link is the person's only way to sign in. */
  readonly unlink: AccountForm | undefined;
}

const item = (link: LinkedAccountView, unlink: AccountForm | undefined) => html`<li class="identity"><strong>${link.name}</strong>${
  link.showSubject ? ` (${TEXTS.account(link.subject)})` : ''
}: ${TEXTS.linked(utcMinute(link.linkedAt))}${
  unlink
    ? html`
<form method="post" action="${unlink.action}">
${csrfInput(unlink.csrf)}
<input type="hidden" name="provider" value="${link.provider}">
<input type="hidden" name="subject" value="${link.subject}">
<button type="submit">${TEXTS.unlink(link.name)}</button>
</form>`
    : ''
}</li>`;

export function identitiesSectionBody(view: IdentitiesSectionView): SafeHtml {
  if (view.links.length === 0) return html`<p>${TEXTS.none}</p>`;
  const list = html`<ul class="identities">${view.links.map((link) => item(link, view.unlink))}</ul>`;
  return view.unlink ? list : html`${list}\n<p class="only-way">${TEXTS.onlyWay}</p>`;
}
