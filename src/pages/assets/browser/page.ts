/**
 * The browser script of pages with a password field or dates, served as `{issuer}/assets/page.js`
 * (a classic script for ES2017 browsers, src/http/browser-bundle.ts). Without it the page works
 * as written: a plain password field, dates in UTC.
 *
 * - Each `input[type=password]` gets a button after it that shows and hides what was typed; its
 *   words come from `data-show-password` and `data-hide-password` on `<main>` (the page's language).
 * - Each `<time datetime>` marked `data-local` is written again in the browser's time zone, in the
 *   page's language (`<html lang>`), as `Intl.DateTimeFormat` words it.
 */

function addPasswordToggles(main: HTMLElement): void {
  const show = main.dataset.showPassword;
  const hide = main.dataset.hidePassword;
  if (!show || !hide) return;
  for (const input of Array.from(document.querySelectorAll<HTMLInputElement>('input[type=password]'))) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'show-password';
    button.textContent = show;
    button.setAttribute('aria-pressed', 'false');
    if (input.id) button.setAttribute('aria-controls', input.id);
    button.addEventListener('click', () => {
      const shown = input.type === 'password';
      input.type = shown ? 'text' : 'password';
      button.textContent = shown ? hide : show;
      button.setAttribute('aria-pressed', String(shown));
    });
    input.insertAdjacentElement('afterend', button);
  }
}

function localTimes(): void {
  const lang = document.documentElement.lang || undefined;
  for (const element of Array.from(document.querySelectorAll<HTMLTimeElement>('time[data-local]'))) {
    const when = new Date(element.dateTime);
    if (Number.isNaN(when.getTime())) continue;
    const options: Intl.DateTimeFormatOptions = element.dataset.local === 'day' ? { dateStyle: 'medium' } : { dateStyle: 'medium', timeStyle: 'short' };
    element.textContent = new Intl.DateTimeFormat(lang, options).format(when);
  }
}

const main = document.querySelector('main');
if (main) addPasswordToggles(main);
localTimes();
