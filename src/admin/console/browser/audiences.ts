/**
 * The admin console's audiences module: a client's ID-JAG audiences (CONTRACT.md §15), the
 * authorization servers of other trust domains it may obtain identity assertions for, edited
 * as rows (issuer, its client ID there, the scope it may ask there) that the person adds and
 * removes.
 */
import { field, h } from './dom.js';
import { t } from './i18n.js';
import type { IdJagAudience } from './records.js';

/** Names each row by its place, so that the rows and their Remove buttons stay told apart. */
function renumber(list: HTMLElement): void {
  list.querySelectorAll<HTMLElement>('.audience').forEach((row, index) => {
    row.setAttribute('aria-label', t('ID-JAG audience {number}', { number: index + 1 }));
    row.querySelector('button')?.setAttribute('aria-label', t('Remove ID-JAG audience {number}', { number: index + 1 }));
  });
}

function audienceRow(list: HTMLElement, audience?: IdJagAudience): HTMLElement {
  const row: HTMLElement = h(
    'div',
    { class: 'rows audience', role: 'group' },
    field(t('Issuer'), h('input', { name: 'id_jag_issuer', maxlength: 2000, spellcheck: 'false', autocomplete: 'off', value: audience?.issuer ?? '' })),
    field(t('Client ID there'), h('input', { name: 'id_jag_client_id', maxlength: 2000, spellcheck: 'false', autocomplete: 'off', value: audience?.client_id ?? '' })),
    field(t('Scope there'), h('input', { name: 'id_jag_scope', maxlength: 4000, spellcheck: 'false', autocomplete: 'off', value: audience?.scope ?? '' })),
    h('button', {
      type: 'button',
      onclick: () => {
        row.remove();
        renumber(list);
      },
    }, t('Remove')),
  );
  return row;
}

/** The rows of the audiences, and a button that adds an empty one. */
export function idJagAudienceRows(audiences: readonly IdJagAudience[]): HTMLElement {
  const list = h('div', { class: 'audiences' });
  list.append(...audiences.map((audience) => audienceRow(list, audience)));
  renumber(list);
  return h(
    'div',
    {},
    h('h4', {}, t('ID-JAG audiences')),
    h('p', { class: 'note' }, t('The authorization servers of other trust domains this client may get ID-JAGs for by token exchange (confidential clients only): each one\'s issuer, this client\'s client ID there, and the scope it may ask there (empty: any).')),
    list,
    h('button', {
      type: 'button',
      onclick: () => {
        const row = audienceRow(list);
        list.append(row);
        renumber(list);
        row.querySelector('input')?.focus();
      },
    }, t('Add an ID-JAG audience')),
  );
}

/** The audiences the form's rows say; a row left empty is no audience, a half-filled one a mistake. */
export function idJagAudiencesOf(form: HTMLFormElement): IdJagAudience[] {
  return [...form.querySelectorAll<HTMLElement>('.audience')].flatMap((row, index) => {
    const text = (name: string) => row.querySelector<HTMLInputElement>('input[name="' + name + '"]')?.value.trim() ?? '';
    const issuer = text('id_jag_issuer');
    const clientId = text('id_jag_client_id');
    const scope = text('id_jag_scope').split(/\s+/).filter(Boolean).join(' ');
    if (issuer === '' && clientId === '' && scope === '') return [];
    if (issuer === '' || clientId === '') throw new Error(t('ID-JAG audience {number}: give its issuer and this client\'s client ID there.', { number: index + 1 }));
    return [{ issuer, client_id: clientId, ...(scope ? { scope } : {}) }];
  });
}
