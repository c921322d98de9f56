/**
 * The admin console's registration module: a token that lets one client register
 * itself (RFC 7591), perhaps with more grant types, scopes and authorization details types than
 * the realm's registration policy allows; shown once.
 */
import { api } from './api.js';
import { GRANTS } from './clients.js';
import { checkbox, field, guarded, h, isChecked, say, secretBox, valueOf } from './dom.js';
import { shownBeside } from './form-errors.js';
import { t } from './i18n.js';

const DAY = 24 * 3600;

/** The realm's RFC 9396 types (its setting authorization_details_types), each a box; none: a note saying where they are defined. */
function typeBoxes(types: readonly string[]): HTMLElement {
  return h(
    'fieldset',
    {},
    h('legend', {}, t('Authorization details types the registered client may use')),
    types.length > 0
      ? types.map((type) => checkbox(type, 'type:' + type, false))
      : h('p', { class: 'note' }, t('The realm defines none: add them in its settings (Tokens, Authorization details types).')),
  );
}

export async function initialAccessTokensView(realm: string, panel: HTMLElement) {
  const { issuer, settings } = await api.realm(realm);
  const types = Object.keys((settings.authorization_details_types ?? {}) as Record<string, unknown>);
  const secrets = h('div', { class: 'secrets' });
  const form = h(
    'form',
    { 'aria-label': t('New initial access token') },
    h('h3', {}, t('New initial access token')),
    field(t('Lifetime (seconds)'), h('input', { name: 'expires_in', type: 'number', min: 1, max: 30 * DAY, step: 1, value: DAY }), t('At most 30 days.')),
    h(
      'fieldset',
      {},
      h('legend', {}, t('Grant types beyond the realm\'s registration_grant_types')),
      GRANTS.map(([grant, label]) => checkbox(t(label), 'grant:' + grant, false)),
    ),
    field(t('Scopes beyond the realm\'s registration_scopes'), h('input', { name: 'scope', spellcheck: 'false' }), t('Scope names separated by spaces.')),
    typeBoxes(types),
    h('button', { 'data-operation': 'createInitialAccessToken', type: 'submit', class: 'primary' }, t('Issue token')),
  );
  form.addEventListener('submit', guarded(shownBeside(form, async () => {
    const grantTypes = GRANTS.map(([grant]) => grant).filter((grant) => isChecked(form, 'grant:' + grant));
    const scope = valueOf(form, 'scope').trim().split(/\s+/).filter(Boolean).join(' ');
    const chosenTypes = types.filter((type) => isChecked(form, 'type:' + type));
    const answer = await api.createInitialAccessToken(realm, {
      expires_in: Number(valueOf(form, 'expires_in')),
      ...(grantTypes.length > 0 ? { grant_types: grantTypes } : {}),
      ...(scope ? { scope } : {}),
      ...(chosenTypes.length > 0 ? { authorization_details_types: chosenTypes } : {}),
    });
    secrets.replaceChildren(secretBox(t('Initial access token'), [['token', answer.token], ['expires_in', String(answer.expires_in)]]));
    say(t('An initial access token for one registration, valid {seconds} s.', { seconds: answer.expires_in }));
  })));

  // The endpoint is code within the sentence: the translated sentence is split at its placeholder.
  const [before, after] = t('A client registers itself at {endpoint} with the token as its bearer token. Each token serves one registration; the server keeps only its hash.').split('{endpoint}');
  panel.replaceChildren(
    h('p', {}, before, h('code', {}, issuer + '/connect/register'), after),
    secrets,
    form,
  );
}
