import { html } from './html.js';
import type { Messages } from './i18n/index.js';
import type { Page } from './layout.js';

const ROOT_DISCOVERY = '/oauth2/.well-known/openid-configuration';

/**
 * What someone who opens the server's address finds (CONTRACT.md §16). It links the console
 * (`consoleUrl`) only when this port serves it: with ADMIN_PORT the public port neither serves nor names the admin API.
 */
export function landingPage(t: Messages, options: { consoleUrl: string | undefined }): Page {
  const item = (href: string, label: string, hint: string) => html`<li><a href="${href}">${label}</a><br><span class="realm">${hint}</span></li>\n`;
  return {
    options: { t, title: t.landing.title },
    body: html`<p>${t.landing.lead}</p>
<ul class="links">
${options.consoleUrl === undefined ? '' : item(options.consoleUrl, t.landing.console, t.landing.consoleHint)}${item(ROOT_DISCOVERY, t.landing.discovery, t.landing.discoveryHint)}<li>${t.landing.docs}<br><span class="realm">${t.landing.docsHint(html`<code>README.md</code>`, html`<code>docs/</code>`)}</span></li>
</ul>
`,
  };
}
