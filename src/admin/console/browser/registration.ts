/**
 * The admin console's registration module: a token that lets one client register
 * itself (RFC 7591), perhaps with more grant types and scopes than the realm's registration
 * policy allows; shown once.
 */
import { api } from './api.js';
import { GRANTS } from './clients.js';
import { checkbox, field, guarded, h, isChecked, say, secretBox, valueOf } from './dom.js';

const DAY = 24 * 3600;

export async function initialAccessTokensView(realm: string, panel: HTMLElement) {
  const { issuer } = await api.realm(realm);
  const secrets = h('div', { class: 'secrets' });
  const form = h(
    'form',
    { 'aria-label': 'New initial access token' },
    h('h3', {}, 'New initial access token'),
    field('Lifetime (seconds)', h('input', { name: 'expires_in', type: 'number', min: 1, max: 30 * DAY, step: 1, value: DAY }), 'At most 30 days.'),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Grant types beyond the realm\'s registration_grant_types'),
      GRANTS.map(([grant, label]) => checkbox(label, 'grant:' + grant, false)),
    ),
    field('Scopes beyond the realm\'s registration_scopes', h('input', { name: 'scope', spellcheck: 'false' }), 'Scope names separated by spaces.'),
    h('button', { 'data-operation': 'createInitialAccessToken', type: 'submit', class: 'primary' }, 'Issue token'),
  );
  form.addEventListener('submit', guarded(async () => {
    const grantTypes = GRANTS.map(([grant]) => grant).filter((grant) => isChecked(form, 'grant:' + grant));
    const scope = valueOf(form, 'scope').trim().split(/\s+/).filter(Boolean).join(' ');
    const answer = await api.createInitialAccessToken(realm, {
      expires_in: Number(valueOf(form, 'expires_in')),
      ...(grantTypes.length > 0 ? { grant_types: grantTypes } : {}),
      ...(scope ? { scope } : {}),
    });
    secrets.replaceChildren(secretBox('Initial access token', [['token', answer.token], ['expires_in', String(answer.expires_in)]]));
    say('An initial access token for one registration, valid ' + answer.expires_in + ' s.');
  }));

  panel.replaceChildren(
    h(
      'p',
      {},
      'A client registers itself at ',
      h('code', {}, issuer + '/connect/register'),
      ' with the token as its bearer token. Each token serves one registration; the server keeps only its hash.',
    ),
    secrets,
    form,
  );
}
