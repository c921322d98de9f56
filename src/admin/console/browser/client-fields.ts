/**
 * The admin console's client-fields module: the fields of a client record about OpenID Connect
 * logout and CIBA notifications (CONTRACT.md §12), its signed responses, its subject identifiers (§13), and delegation across trust domains (§15),
 * shared by the new-client and edit-client forms. Each is sent only when it differs from what
 * the client has, so that a client never given them is saved without them.
 */
import { idJagAudienceRows, idJagAudiencesOf } from './audiences.js';
import { checkbox, field, h, isChecked, same, valueOf } from './dom.js';
import type { Client } from './records.js';
import { t } from './i18n.js';

const ALGS = ['RS256', 'ES256'] as const;

/** What each field is when the record has none (src/records/client.ts): the form shows that. */
const ABSENT: Record<string, unknown> = {
  backchannel_logout_uri: null,
  backchannel_logout_session_required: false,
  frontchannel_logout_uri: null,
  frontchannel_logout_session_required: false,
  id_token_signed_response_alg: 'RS256',
  authorization_signed_response_alg: 'RS256',
  introspection_signed_response_alg: 'RS256',
  backchannel_token_delivery_mode: 'poll',
  backchannel_client_notification_endpoint: null,
  transaction_token_service: false,
  id_jag_audiences: [],
  subject_type: 'public',
  sector_identifier_uri: null,
  authorization_details_types: [],
};

/** The names of the fields this module's controls edit. */
export const CLIENT_FIELDS: readonly string[] = Object.keys(ABSENT);

const LOOPBACK_NOTE = () => t('https, or http on a loopback host. Empty: none.');

const uriField = (label: string, name: string, value: string | undefined, hint: string) =>
  field(label, h('input', { name, maxlength: 2000, spellcheck: 'false', autocomplete: 'off', value: value ?? '' }), hint + ' ' + LOOPBACK_NOTE());

const DELIVERY_MODES = ['poll', 'ping', 'push'] as const;

/** The CIBA delivery modes, the client's chosen. */
const modeSelect = (chosen: string) =>
  h('select', { name: 'backchannel_token_delivery_mode' }, DELIVERY_MODES.map((mode) => h('option', { value: mode, selected: mode === chosen }, mode)));

const algSelect = (label: string, name: string, value: string | undefined, hint: string) =>
  field(label, h('select', { name }, ALGS.map((alg) => h('option', { value: alg, selected: alg === (value ?? ABSENT[name]) }, alg))), hint);

/** The controls, filled with the client's values (a new client: none); `realmTypes`: the realm's authorization details types. */
export const clientFieldControls = (client: Partial<Client>, realmTypes: readonly string[]) => [
  h(
    'fieldset',
    {},
    h('legend', {}, t('Logout (OpenID Connect)')),
    uriField(t('Back-channel logout URI'), 'backchannel_logout_uri', client.backchannel_logout_uri, t('Where a logout token is POSTed when a session it was given a code or tokens in ends.')),
    checkbox(t('Back-channel logout needs the session ID'), 'backchannel_logout_session_required', client.backchannel_logout_session_required, t('Its logout tokens must carry sid (they always do).')),
    uriField(t('Front-channel logout URI'), 'frontchannel_logout_uri', client.frontchannel_logout_uri, t('The page the end-session page frames, with iss and sid, after a logout of a session it was given a code or tokens in.')),
    checkbox(t('Front-channel logout needs the issuer and session ID'), 'frontchannel_logout_session_required', client.frontchannel_logout_session_required, t('Its front-channel logout URI must receive iss and sid (it always does).')),
  ),
  h(
    'fieldset',
    {},
    h('legend', {}, t('Signed responses')),
    algSelect(t('ID token algorithm'), 'id_token_signed_response_alg', client.id_token_signed_response_alg, t('The realm key its ID tokens and logout tokens are signed with.')),
    algSelect(t('Authorization response algorithm (JARM)'), 'authorization_signed_response_alg', client.authorization_signed_response_alg, t('Signs its JWT authorization responses (response_mode=jwt, query.jwt, form_post.jwt).')),
    algSelect(t('Introspection response algorithm'), 'introspection_signed_response_alg', client.introspection_signed_response_alg, t('Signs its JWT introspection responses (RFC 9701, asked with Accept: application/token-introspection+jwt).')),
  ),
  h(
    'fieldset',
    {},
    h('legend', {}, t('Subject identifiers')),
    field(
      t('Subject identifiers'),
      h('select', { name: 'subject_type' }, [['public', t('public: every client sees the same sub')], ['pairwise', t('pairwise: a sub of its sector alone')]].map(([value, label]) =>
        h('option', { value, selected: value === (client.subject_type ?? 'public') }, label))),
      t('OpenID Connect Core §8: a pairwise client cannot link a person to the sub other sectors see.'),
    ),
    field(
      t('Sector identifier URI'),
      h('input', { name: 'sector_identifier_uri', maxlength: 2000, spellcheck: 'false', autocomplete: 'off', value: client.sector_identifier_uri ?? '' }),
      t('An https JSON array listing every redirect URI; its host is the sector. Empty: the one host all its redirects share.'),
    ),
  ),
  h(
    'fieldset',
    {},
    h('legend', {}, t('Backchannel authentication (CIBA)')),
    field(
      t('Token delivery mode'),
      modeSelect(client.backchannel_token_delivery_mode ?? 'poll'),
      t('poll: it asks the token endpoint; ping: it is told the request was answered, then asks; push: it is sent the tokens.'),
    ),
    uriField(t('Client notification endpoint'), 'backchannel_client_notification_endpoint', client.backchannel_client_notification_endpoint, t('Where pings and pushed tokens are POSTed (ping and push modes need it).')),
  ),
  h(
    'fieldset',
    {},
    h('legend', {}, t('Delegation across trust domains')),
    checkbox(
      t('Transaction token service'),
      'transaction_token_service',
      client.transaction_token_service,
      t('It may exchange any live access token of the realm for a transaction token: a workload of the trust domain, such as its API gateway (confidential clients only; the realm setting transaction_tokens turns them on).'),
    ),
    idJagAudienceRows(client.id_jag_audiences ?? []),
  ),
  typeBoxes(client.authorization_details_types ?? [], realmTypes),
];

const TYPE_BOX = 'authorization_details_type:';

/** A box for each RFC 9396 type: those the client has first (in its order), then the realm's others. */
function typeBoxes(chosen: readonly string[], realmTypes: readonly string[]): HTMLElement {
  const types = [...chosen, ...realmTypes.filter((type) => !chosen.includes(type))];
  return h(
    'fieldset',
    {},
    h('legend', {}, t('Authorization details it may ask for')),
    h('p', { class: 'note' }, t('The kinds of RFC 9396 authorization details it may ask for, among those the realm defines in its settings. None ticked: none.')),
    types.map((type) => checkbox(type, TYPE_BOX + type, chosen.includes(type))),
  );
}

/** What the controls say, as the record names it; an empty URI is null (none). */
function valuesOf(form: HTMLFormElement): Record<string, unknown> {
  const uri = (name: string) => valueOf(form, name).trim() || null;
  return {
    backchannel_logout_uri: uri('backchannel_logout_uri'),
    backchannel_logout_session_required: isChecked(form, 'backchannel_logout_session_required'),
    frontchannel_logout_uri: uri('frontchannel_logout_uri'),
    frontchannel_logout_session_required: isChecked(form, 'frontchannel_logout_session_required'),
    id_token_signed_response_alg: valueOf(form, 'id_token_signed_response_alg'),
    authorization_signed_response_alg: valueOf(form, 'authorization_signed_response_alg'),
    introspection_signed_response_alg: valueOf(form, 'introspection_signed_response_alg'),
    backchannel_token_delivery_mode: valueOf(form, 'backchannel_token_delivery_mode'),
    backchannel_client_notification_endpoint: uri('backchannel_client_notification_endpoint'),
    transaction_token_service: isChecked(form, 'transaction_token_service'),
    id_jag_audiences: idJagAudiencesOf(form),
    subject_type: valueOf(form, 'subject_type'),
    sector_identifier_uri: uri('sector_identifier_uri'),
    authorization_details_types: [...form.querySelectorAll<HTMLInputElement>('input[type=checkbox]')].filter((box) => box.checked && box.name.startsWith(TYPE_BOX)).map((box) => box.name.slice(TYPE_BOX.length)),
  };
}

/**
 * The fields whose values differ from the client's (a new client: from none), as PATCH or POST
 * sends them: a URI emptied is null (cleared), a box unticked false, the audiences all taken out [].
 */
export function changedClientFields(form: HTMLFormElement, client: Partial<Client> = {}): Record<string, unknown> {
  return Object.fromEntries(Object.entries(valuesOf(form)).filter(([name, value]) => !same(value, client[name] ?? ABSENT[name])));
}
