/**
 * The admin console's scope-claims module: the claims a scope puts in tokens, as rows (the
 * claim's name, where its value comes from, the tokens it goes in) that the person adds and
 * removes: a person's roles or groups, their username or email, or one of their claims.
 */
import { checkbox, field, h } from './dom.js';
import { t } from './i18n.js';
import type { MappedClaim } from './records.js';

/** Where a claim's value comes from, in plain words (in the console's language when drawn). */
const SOURCES: readonly (readonly [source: string, label: () => string])[] = [
  ['roles', () => t('their roles')],
  ['groups', () => t('their groups')],
  ['username', () => t('their username')],
  ['email', () => t('their email')],
  ['attribute', () => t('one of their claims')],
];
const TOKENS: readonly (readonly [token: string, label: () => string])[] = [
  ['id_token', () => t('ID token')],
  ['access_token', () => t('Access token')],
  ['userinfo', () => t('Userinfo')],
  ['introspection', () => t('Introspection')],
];
const ATTRIBUTE = 'attribute:';

/** Names each row by its place, so that the rows and their controls stay told apart. */
function renumber(list: HTMLElement): void {
  list.querySelectorAll<HTMLElement>('.scope-claim').forEach((row, index) => {
    row.setAttribute('aria-label', t('Claim {number}', { number: index + 1 }));
    row.querySelector('button.remove')?.setAttribute('aria-label', t('Remove claim {number}', { number: index + 1 }));
  });
}

function claimRow(list: HTMLElement, claim?: MappedClaim): HTMLElement {
  const attribute = claim?.source.startsWith(ATTRIBUTE) ? claim.source.slice(ATTRIBUTE.length) : '';
  const chosen = claim === undefined ? 'roles' : attribute ? 'attribute' : claim.source;
  const row: HTMLElement = h(
    'div',
    { class: 'scope-claim', role: 'group' },
    h(
      'div',
      { class: 'rows' },
      field(t('Claim name'), h('input', { name: 'claim_name', maxlength: 255, spellcheck: 'false', autocomplete: 'off', value: claim?.name ?? '' })),
      field(t('Its value'), h('select', { name: 'claim_source' }, SOURCES.map(([source, label]) => h('option', { value: source, selected: source === chosen }, label())))),
      field(t('Their claim'), h('input', { name: 'claim_attribute', maxlength: 100, spellcheck: 'false', autocomplete: 'off', value: attribute }), t('For "one of their claims".')),
      h('button', { type: 'button', class: 'remove', onclick: () => (row.remove(), renumber(list)) }, t('Remove')),
    ),
    h('div', { class: 'claim-tokens' }, TOKENS.map(([token, label]) => checkbox(label(), 'claim_token:' + token, claim?.tokens.includes(token) ?? false))),
  );
  return row;
}

/** The rows of the claims, and a button that adds an empty one. */
export function scopeClaimRows(): { element: HTMLElement; fill: (claims: readonly MappedClaim[]) => void } {
  const list = h('div', { class: 'scope-claims' });
  const fill = (claims: readonly MappedClaim[]) => {
    list.replaceChildren(...claims.map((claim) => claimRow(list, claim)));
    renumber(list);
  };
  const element = h(
    'fieldset',
    {},
    h('legend', {}, t('Claims in its tokens')),
    h('p', { class: 'note' }, t('What a token whose scope holds this one says of the person, and in which tokens. None: its tokens say nothing more.')),
    list,
    h('button', {
      type: 'button',
      onclick: () => {
        const row = claimRow(list);
        list.append(row);
        renumber(list);
        row.querySelector('input')?.focus();
      },
    }, t('Add a claim')),
  );
  return { element, fill };
}

/** The claims the rows say; a row left empty is none, a half-filled one a mistake. */
export function scopeClaimsOf(form: HTMLFormElement): MappedClaim[] {
  return [...form.querySelectorAll<HTMLElement>('.scope-claim')].flatMap((row, index) => {
    const control = (name: string) => row.querySelector<HTMLInputElement | HTMLSelectElement>('[name="' + name + '"]')!;
    const name = control('claim_name').value.trim();
    const source = control('claim_source').value;
    const attribute = control('claim_attribute').value.trim();
    const tokens = TOKENS.map(([token]) => token).filter((token) => (control('claim_token:' + token) as HTMLInputElement).checked);
    if (name === '' && tokens.length === 0 && attribute === '') return [];
    const number = index + 1;
    if (name === '') throw new Error(t('Claim {number}: give the claim a name.', { number }));
    if (tokens.length === 0) throw new Error(t('Claim {number}: tick the tokens it goes in.', { number }));
    if (source === 'attribute' && attribute === '') throw new Error(t('Claim {number}: name the claim of theirs it takes its value from.', { number }));
    return [{ name, source: source === 'attribute' ? ATTRIBUTE + attribute : source, tokens }];
  });
}
