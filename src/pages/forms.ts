import { type SafeHtml, html } from './html.js';
import type { PageOptions } from './layout.js';
import { errorBox, hiddenFields as hidden, noticeBox, scopeItems } from './parts.js';

/**
 * A page of the sign-in: the current step's form, and other ways through it (a passkey
 * instead of a password), each its own form carrying the hidden inputs.
 */
export function signInPage(input: {
  realm: string;
  title: string;
  hidden: Record<string, string>;
  step: { body: SafeHtml; hidden: Record<string, string> };
  alternatives: ReadonlyArray<{ body: SafeHtml; hidden: Record<string, string> }>;
  error?: string;
  /** What was done (a mail sent again). */
  notice?: string;
  status?: number;
  formTargets: readonly string[];
  scripts?: readonly string[];
}): { options: PageOptions; body: SafeHtml } {
  const form = (part: { body: SafeHtml; hidden: Record<string, string> }) =>
    html`<form method="post">
${hidden({ ...input.hidden, ...part.hidden })}
${part.body}
</form>`;
  return {
    options: {
      title: input.title,
      realm: input.realm,
      formTargets: input.formTargets,
      ...(input.status === undefined ? {} : { status: input.status }),
      ...(input.scripts === undefined ? {} : { scripts: input.scripts }),
    },
    body: html`${errorBox(input.error)}${input.notice === undefined ? '' : noticeBox(input.notice)}
${form(input.step)}
${input.alternatives.map((alternative) => html`<div class="alternative">${form(alternative)}</div>`)}`,
  };
}

export function consentPage(input: {
  realm: string;
  clientName: string;
  scopes: ReadonlyArray<{ name: string; description: string }>;
  /** For a device's request: the code the person should see on the device too (RFC 8628 §5.4). */
  userCode?: string;
  hidden: Record<string, string>;
  formTargets: readonly string[];
}): { options: PageOptions; body: SafeHtml } {
  const items = scopeItems(input.scopes);
  return {
    options: { title: 'Allow access?', realm: input.realm, formTargets: input.formTargets },
    body: html`${input.userCode ? html`<p>Check that your device shows the code <strong class="user-code">${input.userCode}</strong>.</p>
` : ''}<p><strong>${input.clientName}</strong> asks to:</p>
${items.length > 0 ? html`<ul class="scopes">${items}</ul>` : html`<p>Know that you signed in.</p>`}
<form method="post">
${hidden(input.hidden)}
<button class="primary" type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  };
}

export function signOutPage(input: {
  realm: string;
  hidden: Record<string, string>;
  formTargets: readonly string[];
}): { options: PageOptions; body: SafeHtml } {
  return {
    options: { title: 'Sign out', realm: input.realm, formTargets: input.formTargets },
    body: html`<p>Do you want to sign out?</p>
<form method="post">
${hidden(input.hidden)}
<button class="primary" type="submit" name="decision" value="allow">Sign out</button>
<button type="submit" name="decision" value="deny">Stay signed in</button>
</form>`,
  };
}

export function messagePage(input: { realm: string; title: string; message: string; status?: number }): {
  options: PageOptions;
  body: SafeHtml;
} {
  return {
    options: { title: input.title, realm: input.realm, status: input.status ?? 200 },
    body: html`<p${input.status && input.status >= 400 ? html` class="error" role="alert"` : ''}>${input.message}</p>`,
  };
}
