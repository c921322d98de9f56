import { type SafeHtml, html } from '../html.js';
import type { Messages } from '../i18n/index.js';
import { type AccountForm, csrfInput, textWithDates } from './form.js';

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
  /** The realm's providers an account of which can be linked (one form, a button per provider). */
  readonly link: { readonly form: AccountForm; readonly providers: ReadonlyArray<{ readonly alias: string; readonly name: string }> } | undefined;
}

const item = (t: Messages, texts: Messages['account']['identities'], link: LinkedAccountView, unlink: AccountForm | undefined) => html`<li class="identity"><strong>${link.name}</strong>${
  link.showSubject ? ` (${texts.account(link.subject)})` : ''
}: ${textWithDates(t, [link.linkedAt], (when) => texts.linked(when!))}${
  unlink
    ? html`
<form method="post" action="${unlink.action}">
${csrfInput(unlink.csrf)}
<input type="hidden" name="provider" value="${link.provider}">
<input type="hidden" name="subject" value="${link.subject}">
<button type="submit">${texts.unlink(link.name)}</button>
</form>`
    : ''
}</li>`;

const linkForm = (texts: Messages['account']['identities'], link: NonNullable<IdentitiesSectionView['link']>) => html`
<form method="post" action="${link.form.action}">
${csrfInput(link.form.csrf)}
${link.providers.map((provider) => html`<button type="submit" name="provider" value="${provider.alias}">${texts.link(provider.name)}</button>\n`)}</form>`;

export function identitiesSectionBody(t: Messages, view: IdentitiesSectionView): SafeHtml {
  const texts = t.account.identities;
  const adding = view.link && view.link.providers.length > 0 ? linkForm(texts, view.link) : '';
  if (view.links.length === 0) return html`<p>${texts.none}</p>${adding}`;
  const list = html`<ul class="identities">${view.links.map((link) => item(t, texts, link, view.unlink))}</ul>`;
  return view.unlink ? html`${list}${adding}` : html`${list}\n<p class="only-way">${texts.onlyWay}</p>${adding}`;
}
