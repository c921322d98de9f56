import { type SafeHtml, html } from '../html.js';

/**
 * The page at which a sign-in waits for the person's email address to be confirmed
 * (CONTRACT.md §9): continue once the mail's link is opened, or have the mail sent again.
 */
export function checkYourMailBody(): SafeHtml {
  return html`<p>Before you sign in, confirm your email address: open the link in the mail we sent you, then continue here.</p>
<button class="primary" type="submit">Continue</button>
<button type="submit" name="resend" value="1">Send the mail again</button>`;
}
