/**
 * The admin console's clients module: a realm's clients, a new one (with snippets that use it),
 * changes to one, and a new secret; every secret the server answers is shown once. Each client
 * has a URL of its own (`#/realms/{realm}/clients/{client_id}`) that opens it.
 */
import { api } from './api.js';
import { CLIENT_FIELDS, changedClientFields, clientFieldControls } from './client-fields.js';
import type { Client } from './records.js';
import { integrationSnippets } from './snippet.js';
import { shownBeside } from './form-errors.js';
import { t, translatable } from './i18n.js';
import { localisedFields, localisedOf } from './localised-fields.js';
import { checkbox, control, copyButton, deleteButton, field, guarded, h, isChecked, jsonObject, lines, same, say, secretBox, setValue, table, valueOf } from './dom.js';

export const GRANTS: readonly (readonly [grant: string, label: string])[] = [
  ['authorization_code', translatable('Authorization code')],
  ['refresh_token', translatable('Refresh token')],
  ['client_credentials', translatable('Client credentials')],
  ['urn:ietf:params:oauth:grant-type:device_code', translatable('Device code')],
  ['urn:openid:params:grant-type:ciba', translatable('CIBA')],
  ['urn:ietf:params:oauth:grant-type:token-exchange', translatable('Token exchange')],
  ['urn:ietf:params:oauth:grant-type:jwt-bearer', translatable('JWT bearer')],
  ['urn:ietf:params:oauth:grant-type:saml2-bearer', translatable('SAML 2.0 bearer')],
  ['password', translatable('Password')],
];
const SECRET_METHODS = ['client_secret_basic', 'client_secret_post'];

export const grantBoxes = (chosen: readonly string[]) =>
  h('fieldset', {}, h('legend', {}, t('Grant types')), GRANTS.map(([grant, label]) => checkbox(t(label), 'grant:' + grant, chosen.includes(grant))));
export const chosenGrants = (form: HTMLFormElement): string[] => GRANTS.map(([grant]) => grant).filter((grant) => isChecked(form, 'grant:' + grant));
const uriList = (label: string, name: string, uris: readonly string[]) => field(label, h('textarea', { name, rows: 2, value: uris.join('\n') }), t('One per line.'));

/** The fields of a client both forms share, filled with the client's values. */
const recordFields = (client: Pick<Client, 'client_name' | 'redirect_uris' | 'grant_types' | 'scope'> & { client_names?: Record<string, string> }) => [
  field(t('Name'), h('input', { name: 'client_name', value: client.client_name })),
  localisedFields(t('Name by language'), 'client_names', client.client_names, t('What the sign-in and consent pages call it in each language; empty: its name above.'), 200),
  uriList(t('Redirect URIs'), 'redirect_uris', client.redirect_uris),
  grantBoxes(client.grant_types),
  field(t('Scope'), h('input', { name: 'scope', value: client.scope }), t('Scope names separated by spaces; each must exist in the realm.')),
];

/** What the shared fields say, as the record names it. */
const recordOf = (form: HTMLFormElement) => ({
  client_name: valueOf(form, 'client_name').trim(),
  redirect_uris: lines(valueOf(form, 'redirect_uris')),
  grant_types: chosenGrants(form),
  scope: valueOf(form, 'scope').trim().split(/\s+/).filter(Boolean).join(' '),
});

/** The names by language, when they differ from the client's (a new client: from none); all emptied: null, cleared. */
function changedNames(form: HTMLFormElement, client: Partial<Client> = {}): { client_names?: Record<string, string> | null } {
  const names = localisedOf(form, 'client_names');
  if (same(names, client.client_names ?? {})) return {};
  return { client_names: Object.keys(names).length > 0 ? names : null };
}

/** Fields the edit form has controls for, and those no one edits (the id and its issue time). */
const FORM_FIELDS = ['client_id', 'client_id_issued_at', 'client_name', 'client_names', 'redirect_uris', 'post_logout_redirect_uris', 'grant_types', 'scope', 'require_pkce', 'skip_consent', ...CLIENT_FIELDS];

/** The record's other fields, edited as JSON: any the server adds later shows too. */
const otherFields = (client: Client): Record<string, unknown> => Object.fromEntries(Object.entries(client).filter(([name]) => !FORM_FIELDS.includes(name)));

/** `record`: the client the URL names, opened at once. */
export async function clientsView(realm: string, panel: HTMLElement, record?: string) {
  const secrets = h('div', { class: 'secrets' });
  // Opening a client adds its URL to the history (the back button shows the list again,
  // through main.ts's hashchange), without rendering the tab again.
  const listUrl = '#/realms/' + encodeURIComponent(realm) + '/clients';
  const urlOf = (clientId: string) => listUrl + '/' + encodeURIComponent(clientId);
  const close = () => {
    editor.replaceChildren();
    if (!location.href.endsWith(listUrl)) history.pushState(null, '', listUrl);
  };
  const list = h('div');
  const editor = h('div');
  // The realm's authorization details types, offered as boxes; one who may not read the realm sees the client's own.
  const realmTypes = await api.realm(realm).then(({ settings }) => Object.keys((settings.authorization_details_types ?? {}) as object), () => []);

  const showSecret = (clientId: string, secret: string) =>
    secrets.replaceChildren(secretBox(t('Client secret of {client_id}', { client_id: clientId }), [['client_id', clientId], ['client_secret', secret]]));

  async function refresh() {
    const clients = await api.clients(realm);
    list.replaceChildren(
      table(
        t('Clients'),
        [t('Client ID'), t('Name'), t('Type'), t('Authentication'), t('Grant types'), t('Redirect URIs'), ''],
        clients.map((client) => [
          h('a', { href: urlOf(client.client_id) }, h('code', {}, client.client_id)),
          client.client_name,
          client.client_type,
          client.token_endpoint_auth_method,
          client.grant_types.join(', '),
          client.redirect_uris.join('\n'),
          h(
            'div',
            { class: 'actions' },
            h('button', { 'data-operation': 'updateClient', type: 'button', 'aria-label': t('Edit {name}', { name: client.client_id }), onclick: () => open(client) }, t('Edit')),
            SECRET_METHODS.includes(client.token_endpoint_auth_method)
              ? h('button', { 'data-operation': 'rotateClientSecret', type: 'button', 'aria-label': t('Rotate the secret of {client_id}', { client_id: client.client_id }), onclick: guarded(() => rotate(client.client_id)) }, t('Rotate secret'))
              : null,
            deleteButton(client.client_id, t('Delete the client {client_id}? Its tokens stop working at once.', { client_id: client.client_id }), () => remove(client.client_id), 'deleteClient'),
          ),
        ]),
      ),
    );
  }

  async function rotate(clientId: string) {
    const answer = await api.rotateSecret(realm, clientId);
    showSecret(clientId, answer.client_secret);
    say(t('A new secret for {client_id}: the old one no longer works.', { client_id: clientId }));
  }

  async function remove(clientId: string) {
    await api.deleteClient(realm, clientId);
    close();
    say(t('Client {client_id} deleted.', { client_id: clientId }));
    await refresh();
  }

  function edit(client: Client) {
    const others = otherFields(client);
    const form = h(
      'form',
      { 'aria-label': t('Edit client {client_id}', { client_id: client.client_id }) },
      h('h3', {}, t('Edit client {client_id}', { client_id: client.client_id }), ' ', copyButton(client.client_id, t('the client ID'))),
      recordFields(client),
      uriList(t('Post-logout redirect URIs'), 'post_logout_redirect_uris', client.post_logout_redirect_uris),
      checkbox(t('Require PKCE'), 'require_pkce', client.require_pkce),
      checkbox(t('Skip consent (when the realm allows bypass)'), 'skip_consent', client.skip_consent),
      clientFieldControls(client, realmTypes),
      field(
        t('More fields (JSON)'),
        h('textarea', { name: 'more', rows: 8, spellcheck: 'false', class: 'code', value: JSON.stringify(others, null, 2) }),
        t('The rest of the record (docs/configuration.md, Client records), e.g. token_endpoint_auth_method, jwks_uri, journey, allowed_audiences. A field taken out is cleared where the record allows it.'),
      ),
      h('button', { 'data-operation': 'updateClient', type: 'submit', class: 'primary' }, t('Save client')),
      h('button', { type: 'button', onclick: close }, t('Cancel')),
    );
    form.addEventListener('submit', guarded(shownBeside(form, async () => {
      const wanted: Record<string, unknown> = {
        ...recordOf(form),
        post_logout_redirect_uris: lines(valueOf(form, 'post_logout_redirect_uris')),
        require_pkce: isChecked(form, 'require_pkce'),
        skip_consent: isChecked(form, 'skip_consent'),
      };
      const more = jsonObject(valueOf(form, 'more'), t('More fields')) ?? {};
      const owned = Object.keys(more).find((name) => FORM_FIELDS.includes(name));
      if (owned) throw new Error(t('More fields: {field} is set above, not here.', { field: owned }));
      // PATCH merges: only what changed is sent; a field taken out is cleared with null.
      for (const name of Object.keys(others)) wanted[name] = null;
      Object.assign(wanted, more);
      const patch = {
        ...Object.fromEntries(Object.entries(wanted).filter(([name, value]) => !same(value, client[name] ?? null))),
        ...changedClientFields(form, client),
        ...changedNames(form, client),
      };
      if (Object.keys(patch).length === 0) return say(t('Nothing changed.'));
      const saved = await api.updateClient(realm, client.client_id, patch);
      if (saved.client_secret) showSecret(saved.client_id, saved.client_secret);
      close();
      say(t('Client {client_id} saved: {fields}.', { client_id: saved.client_id, fields: Object.keys(patch).join(', ') }));
      await refresh();
    })));
    editor.replaceChildren(form);
    control(form, 'client_name').focus();
  }

  const create = h(
    'form',
    { 'aria-label': t('New client') },
    h('h3', {}, t('New client')),
    field(t('Client ID'), h('input', { name: 'client_id', autocomplete: 'off' }), t('Empty: one is generated.')),
    field(t('Type'), h('select', { name: 'client_type' }, h('option', { value: 'confidential' }, t('confidential (has a secret)')), h('option', { value: 'public' }, t('public (PKCE, no secret)')))),
    recordFields({ client_name: '', redirect_uris: [], grant_types: ['authorization_code'], scope: 'openid' }),
    clientFieldControls({}, realmTypes),
    h('button', { 'data-operation': 'createClient', type: 'submit', class: 'primary' }, t('Create client')),
  );
  create.addEventListener('submit', guarded(shownBeside(create, async () => {
    const clientId = valueOf(create, 'client_id').trim();
    const client = await api.createClient(realm, {
      ...(clientId ? { client_id: clientId } : {}),
      client_type: valueOf(create, 'client_type'),
      ...recordOf(create),
      ...changedClientFields(create),
      ...changedNames(create),
    });
    if (client.client_secret) showSecret(client.client_id, client.client_secret);
    const [{ issuer }, resources] = await Promise.all([api.realm(realm), api.resources(realm).catch(() => [])]);
    secrets.append(integrationSnippets({ issuer, client, resource: resources[0]?.identifier }));
    say(t('Client {client_id} created.', { client_id: client.client_id }));
    setValue(create, 'client_id', '');
    await refresh();
  })));

  /** Opens a client by its id, from the server: what the URL names may have changed since the list. */
  async function open(client: Client | string) {
    const clientId = typeof client === 'string' ? client : client.client_id;
    secrets.replaceChildren();
    edit(await api.client(realm, clientId));
    if (!location.href.endsWith(urlOf(clientId))) history.pushState(null, '', urlOf(clientId));
  }

  await refresh();
  panel.replaceChildren(secrets, list, editor, create);
  if (record !== undefined) await open(record);
}
