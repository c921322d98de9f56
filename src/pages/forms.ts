import { type SafeHtml, html } from './html.js';
import { type PageOptions } from './layout.js';

/** The hidden inputs every form carries (CONTRACT.md §4). */
function hidden(fields: Readonly<Record<string, string>>): SafeHtml[] {
  return Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
}

function errorBox(message: string | undefined): SafeHtml | undefined {
  return message === undefined ? undefined : html`<p class="error" role="alert">${message}</p>`;
}

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
    body: html`${errorBox(input.error)}
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
  const items = input.scopes.map((scope) => html`<li><strong>${scope.name}</strong>${scope.description ? html`: ${scope.description}` : ''}</li>`);
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

/** RFC 8628 §3.3: where the person types the code their device shows. */
export function deviceCodePage(input: {
  realm: string;
  hidden: Record<string, string>;
  userCode?: string;
  error?: string;
  status?: number;
}): { options: PageOptions; body: SafeHtml } {
  return {
    options: { title: 'Connect a device', realm: input.realm, status: input.status ?? 200 },
    body: html`${errorBox(input.error)}
<form method="post">
${hidden(input.hidden)}
<label for="user_code">Enter the code shown on your device</label>
<input id="user_code" name="user_code" class="user-code" autocomplete="off" autocapitalize="characters" spellcheck="false" required autofocus placeholder="XXXX-XXXX" value="${input.userCode ?? ''}">
<button class="primary" type="submit">Continue</button>
</form>`,
  };
}

/** A CIBA request as the approval page shows it. */
export interface BackchannelRequestView {
  clientName: string;
  bindingMessage: string | undefined;
  scopes: ReadonlyArray<{ name: string; description: string }>;
  hidden: Record<string, string>;
}

/** The person's authentication device (CIBA Core §1): one form per request waiting for them. */
export function backchannelRequestsPage(input: {
  realm: string;
  username: string;
  requests: readonly BackchannelRequestView[];
  notice?: string | undefined;
}): { options: PageOptions; body: SafeHtml } {
  const sections = input.requests.map(
    (request) => html`<section class="request">
<p><strong>${request.clientName}</strong> asks to:</p>
<ul class="scopes">${request.scopes.map((scope) => html`<li><strong>${scope.name}</strong>${scope.description ? html`: ${scope.description}` : ''}</li>`)}</ul>
${request.bindingMessage ? html`<p>Check that the application shows: <span class="binding-message">${request.bindingMessage}</span></p>` : ''}
<form method="post">
${hidden(request.hidden)}
<button class="primary" type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>
</section>`,
  );
  return {
    options: { title: 'Requests waiting for you', realm: input.realm },
    body: html`${input.notice ? html`<p class="notice" role="status">${input.notice}</p>
` : ''}<p>Signed in as <strong>${input.username}</strong>.</p>
${sections.length > 0 ? sections : html`<p>No requests are waiting for you.</p>`}`,
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
