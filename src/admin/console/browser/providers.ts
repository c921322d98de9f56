/**
 * The admin console's providers module: a realm's upstream OpenID providers
 * (CONTRACT.md §10), a new one, changes to one, deletion once confirmed. The client secret is
 * write-only: typed into a password field, sent, and never shown (the API never answers it).
 */
import { api } from './api.js';
import type { IdentityProvider } from './records.js';
import { checkbox, control, deleteButton, field, guarded, h, isChecked, same, say, setValue, table, valueOf } from './dom.js';

const DEFAULT_SCOPE = 'openid email profile';
const DEFAULT_USERNAME_CLAIM = 'preferred_username';

const secretField = (required: boolean) =>
  field(
    'Client secret',
    h('input', { name: 'client_secret', type: 'password', autocomplete: 'new-password', spellcheck: 'false', required }),
    required ? 'The realm\'s secret at the provider. Stored encrypted; never shown again.' : 'Write-only: empty keeps the stored secret; a new one replaces it.',
  );

/** The fields both forms share, filled with the provider's values. */
const recordFields = (provider: Pick<IdentityProvider, 'issuer' | 'client_id' | 'display_name' | 'scope' | 'username_claim' | 'link_by_verified_email'>) => [
  field('Issuer', h('input', { name: 'issuer', type: 'url', required: true, value: provider.issuer, spellcheck: 'false' }), 'The provider\'s issuer identifier, https; its discovery document is {issuer}/.well-known/openid-configuration.'),
  field('Client ID at the provider', h('input', { name: 'client_id', required: true, value: provider.client_id, autocomplete: 'off', spellcheck: 'false' })),
  field('Display name', h('input', { name: 'display_name', maxlength: 100, value: provider.display_name ?? '' }), 'What the sign-in page\'s button says; empty: the alias.'),
  field('Scope', h('input', { name: 'scope', value: provider.scope }), 'Asked of the provider; must hold openid.'),
  field('Username claim', h('input', { name: 'username_claim', value: provider.username_claim, spellcheck: 'false' }), 'The provider\'s claim a new person\'s username is made from (then the email).'),
  checkbox('Link by verified email', 'link_by_verified_email', provider.link_by_verified_email),
  h('p', { class: 'note' }, 'A new upstream account then joins the one person of the realm with its email, when the provider says the email is verified. Turn it on only for a provider that verifies every address it vouches for: anyone who can claim an address there becomes that person here.'),
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
        'Identity providers',
        ['Alias', 'Display name', 'Issuer', 'Client ID', 'Scope', 'Username claim', 'Links by email', 'Redirect URI', ''],
        providers.map((provider) => [
          h('code', {}, provider.alias),
          provider.display_name ?? '',
          provider.issuer,
          h('code', {}, provider.client_id),
          provider.scope,
          provider.username_claim,
          provider.link_by_verified_email ? 'yes' : 'no',
          h('code', {}, provider.redirect_uri),
          h(
            'div',
            { class: 'actions' },
            h('button', { 'data-operation': 'updateIdentityProvider', type: 'button', 'aria-label': 'Edit ' + provider.alias, onclick: () => edit(provider) }, 'Edit'),
            deleteButton(provider.alias, 'Delete the identity provider ' + provider.alias + '? Its button leaves the sign-in page, and the links of people to their accounts there are removed.', () => remove(provider.alias), 'deleteIdentityProvider'),
          ),
        ]),
      ),
    );
  }

  async function remove(alias: string) {
    await api.deleteIdentityProvider(realm, alias);
    editor.replaceChildren();
    say('Identity provider ' + alias + ' deleted.');
    await refresh();
  }

  function edit(provider: IdentityProvider) {
    const form = h(
      'form',
      { 'aria-label': 'Edit identity provider ' + provider.alias },
      h('h3', {}, 'Edit identity provider ', h('code', {}, provider.alias)),
      h('p', {}, 'Redirect URI to register at the provider: ', h('code', {}, provider.redirect_uri)),
      recordFields(provider),
      secretField(false),
      h('button', { 'data-operation': 'updateIdentityProvider', type: 'submit', class: 'primary' }, 'Save identity provider'),
      h('button', { type: 'button', onclick: () => editor.replaceChildren() }, 'Cancel'),
    );
    form.addEventListener('submit', guarded(async () => {
      const wanted = recordOf(form);
      // PATCH merges: only what changed is sent.
      const patch: Record<string, unknown> = Object.fromEntries(Object.entries(wanted).filter(([name, value]) => !same(value, provider[name] ?? null)));
      const secret = valueOf(form, 'client_secret');
      if (secret !== '') patch.client_secret = secret;
      if (Object.keys(patch).length === 0) return say('Nothing changed.');
      await api.updateIdentityProvider(realm, provider.alias, patch);
      editor.replaceChildren();
      say('Identity provider ' + provider.alias + ' saved: ' + Object.keys(patch).join(', ') + '.');
      await refresh();
    }));
    editor.replaceChildren(form);
    control(form, 'issuer').focus();
  }

  const create = h(
    'form',
    { 'aria-label': 'New identity provider' },
    h('h3', {}, 'New identity provider'),
    field('Alias', h('input', { name: 'alias', required: true, maxlength: 63, autocomplete: 'off', spellcheck: 'false' }), 'a-z, 0-9, _ and -: it names the provider in its redirect URI, {issuer}/broker/{alias}/callback.'),
    recordFields({ issuer: '', client_id: '', scope: DEFAULT_SCOPE, username_claim: DEFAULT_USERNAME_CLAIM, link_by_verified_email: false }),
    secretField(true),
    h('button', { 'data-operation': 'createIdentityProvider', type: 'submit', class: 'primary' }, 'Create identity provider'),
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
    say('Identity provider ' + provider.alias + ' created. Register ' + provider.redirect_uri + ' as a redirect URI at the provider.');
    await refresh();
  }));

  await refresh();
  panel.replaceChildren(
    h('p', {}, 'People of the realm may sign in through another OpenID provider: the sign-in page shows a button for each. An identity_provider journey node may ask for one.'),
    list,
    editor,
    create,
  );
}
