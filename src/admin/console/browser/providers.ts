/**
 * The admin console's providers module: a realm's upstream OpenID providers
 * (CONTRACT.md §10), a new one, changes to one, deletion once confirmed. The client secret is
 * write-only: typed into a password field, sent, and never shown (the API never answers it).
 */
import { api } from './api.js';
import type { IdentityProvider } from './records.js';
import { checkbox, control, deleteButton, field, guarded, h, isChecked, same, say, sentence, setValue, table, valueOf } from './dom.js';
import { t } from './i18n.js';

const DEFAULT_SCOPE = 'openid email profile';
const DEFAULT_USERNAME_CLAIM = 'preferred_username';

const secretField = (required: boolean) =>
  field(
    t('Client secret'),
    h('input', { name: 'client_secret', type: 'password', autocomplete: 'new-password', spellcheck: 'false', required }),
    required ? t('The realm\'s secret at the provider. Stored encrypted; never shown again.') : t('Write-only: empty keeps the stored secret; a new one replaces it.'),
  );

/** The fields both forms share, filled with the provider's values. */
const recordFields = (provider: Pick<IdentityProvider, 'issuer' | 'client_id' | 'display_name' | 'scope' | 'username_claim' | 'link_by_verified_email'>) => [
  field(t('Issuer'), h('input', { name: 'issuer', type: 'url', required: true, value: provider.issuer, spellcheck: 'false' }), t('The provider\'s issuer identifier, https; its discovery document is {discovery}.', { discovery: '{issuer}/.well-known/openid-configuration' })),
  field(t('Client ID at the provider'), h('input', { name: 'client_id', required: true, value: provider.client_id, autocomplete: 'off', spellcheck: 'false' })),
  field(t('Display name'), h('input', { name: 'display_name', maxlength: 100, value: provider.display_name ?? '' }), t('What the sign-in page\'s button says; empty: the alias.')),
  field(t('Scope'), h('input', { name: 'scope', value: provider.scope }), t('Asked of the provider; must hold openid.')),
  field(t('Username claim'), h('input', { name: 'username_claim', value: provider.username_claim, spellcheck: 'false' }), t('The provider\'s claim a new person\'s username is made from (then the email).')),
  checkbox(t('Link by verified email'), 'link_by_verified_email', provider.link_by_verified_email),
  h('p', { class: 'note' }, t('A new upstream account then joins the one person of the realm with its email, when the provider says the email is verified. Turn it on only for a provider that verifies every address it vouches for: anyone who can claim an address there becomes that person here.')),
];

/** What the shared fields say, as the record names them. */
const recordOf = (form: HTMLFormElement) => ({
  issuer: valueOf(form, 'issuer').trim(),
  client_id: valueOf(form, 'client_id').trim(),
  display_name: valueOf(form, 'display_name').trim() || null,
  scope: valueOf(form, 'scope').trim().split(/\s+/).filter(Boolean).join(' '),
  username_claim: valueOf(form, 'username_claim').trim(),
  link_by_verified_email: isChecked(form, 'link_by_verified_email'),
});

export async function identityProvidersView(realm: string, panel: HTMLElement) {
  const list = h('div');
  const editor = h('div');

  async function refresh() {
    const providers = await api.identityProviders(realm);
    list.replaceChildren(
      table(
        t('Identity providers'),
        [t('Alias'), t('Display name'), t('Issuer'), t('Client ID'), t('Scope'), t('Username claim'), t('Links by email'), t('Redirect URI'), ''],
        providers.map((provider) => [
          h('code', {}, provider.alias),
          provider.display_name ?? '',
          provider.issuer,
          h('code', {}, provider.client_id),
          provider.scope,
          provider.username_claim,
          provider.link_by_verified_email ? t('yes') : t('no'),
          h('code', {}, provider.redirect_uri),
          h(
            'div',
            { class: 'actions' },
            h('button', { 'data-operation': 'updateIdentityProvider', type: 'button', 'aria-label': t('Edit {name}', { name: provider.alias }), onclick: () => edit(provider) }, t('Edit')),
            deleteButton(provider.alias, t('Delete the identity provider {alias}? Its button leaves the sign-in page, and the links of people to their accounts there are removed.', { alias: provider.alias }), () => remove(provider.alias), 'deleteIdentityProvider'),
          ),
        ]),
      ),
    );
  }

  async function remove(alias: string) {
    await api.deleteIdentityProvider(realm, alias);
    editor.replaceChildren();
    say(t('Identity provider {alias} deleted.', { alias }));
    await refresh();
  }

  function edit(provider: IdentityProvider) {
    const form = h(
      'form',
      { 'aria-label': t('Edit identity provider {alias}', { alias: provider.alias }) },
      h('h3', {}, sentence(t('Edit identity provider {alias}'), { alias: h('code', {}, provider.alias) })),
      h('p', {}, sentence(t('Redirect URI to register at the provider: {uri}'), { uri: h('code', {}, provider.redirect_uri) })),
      recordFields(provider),
      secretField(false),
      h('button', { 'data-operation': 'updateIdentityProvider', type: 'submit', class: 'primary' }, t('Save identity provider')),
      h('button', { type: 'button', onclick: () => editor.replaceChildren() }, t('Cancel')),
    );
    form.addEventListener('submit', guarded(async () => {
      const wanted = recordOf(form);
      // PATCH merges: only what changed is sent.
      const patch: Record<string, unknown> = Object.fromEntries(Object.entries(wanted).filter(([name, value]) => !same(value, provider[name] ?? null)));
      const secret = valueOf(form, 'client_secret');
      if (secret !== '') patch.client_secret = secret;
      if (Object.keys(patch).length === 0) return say(t('Nothing changed.'));
      await api.updateIdentityProvider(realm, provider.alias, patch);
      editor.replaceChildren();
      say(t('Identity provider {alias} saved: {fields}.', { alias: provider.alias, fields: Object.keys(patch).join(', ') }));
      await refresh();
    }));
    editor.replaceChildren(form);
    control(form, 'issuer').focus();
  }

  const create = h(
    'form',
    { 'aria-label': t('New identity provider') },
    h('h3', {}, t('New identity provider')),
    field(t('Alias'), h('input', { name: 'alias', required: true, maxlength: 63, autocomplete: 'off', spellcheck: 'false' }), t('a-z, 0-9, _ and -: it names the provider in its redirect URI, {uri}.', { uri: '{issuer}/broker/{alias}/callback' })),
    recordFields({ issuer: '', client_id: '', scope: DEFAULT_SCOPE, username_claim: DEFAULT_USERNAME_CLAIM, link_by_verified_email: false }),
    secretField(true),
    h('button', { 'data-operation': 'createIdentityProvider', type: 'submit', class: 'primary' }, t('Create identity provider')),
  );
  create.addEventListener('submit', guarded(async () => {
    const { display_name: displayName, ...record } = recordOf(create);
    const provider = await api.createIdentityProvider(realm, {
      alias: valueOf(create, 'alias').trim(),
      kind: 'oidc',
      ...record,
      ...(displayName ? { display_name: displayName } : {}),
      client_secret: valueOf(create, 'client_secret'),
    });
    for (const name of ['alias', 'issuer', 'client_id', 'client_secret', 'display_name']) setValue(create, name, '');
    say(t('Identity provider {alias} created. Register {uri} as a redirect URI at the provider.', { alias: provider.alias, uri: provider.redirect_uri }));
    await refresh();
  }));

  await refresh();
  panel.replaceChildren(
    h('p', {}, t('People of the realm may sign in through another OpenID provider: the sign-in page shows a button for each. An identity_provider journey node may ask for one.')),
    list,
    editor,
    create,
  );
}
