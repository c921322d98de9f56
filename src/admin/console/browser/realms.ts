/**
 * The admin console's realms module: the realms (list, create) and a realm's deletion.
 */
import { api } from './api.js';
import { importForm } from './documents.js';
import { deleteButton, field, guarded, h, link, localTime, say, table } from './dom.js';
import { t } from './i18n.js';

const realmHash = (realm: string, tab: string): string => '#/realms/' + encodeURIComponent(realm) + '/' + tab;

export async function realmsView(view: HTMLElement): Promise<void> {
  const realms = await api.realms();
  const name = h('input', { name: 'name', required: true, maxlength: 63, autocomplete: 'off' });
  const form = h(
    'form',
    { 'aria-label': t('New realm') },
    h('h3', {}, t('New realm')),
    field(t('Realm name'), name, t('Lower-case letters, digits and hyphens; its issuer is {issuer}.', { issuer: '{BASE_URL}/oauth2/{name}' })),
    h('button', { 'data-operation': 'createRealm', type: 'submit', class: 'primary' }, t('Create realm')),
  );
  form.addEventListener('submit', guarded(async () => {
    const realm = await api.createRealm(name.value.trim());
    location.hash = realmHash(realm.name, 'settings');
    say(t('Realm {realm} created.', { realm: realm.name }));
  }));
  view.replaceChildren(
    h('h2', {}, t('Realms')),
    table(t('Realms'), [t('Realm'), t('Issuer'), t('Created')], realms.map((realm) => [link(realmHash(realm.name, 'settings'), realm.name), realm.issuer, localTime(realm.created_at)])),
    form,
    importForm(() => realmsView(view)),
  );
}

/** The realm's deletion, asked twice; the root realm always exists. */
export function realmDeletion(realm: string): HTMLElement {
  if (realm === 'root') return h('p', { class: 'note' }, t('The root realm always exists: it cannot be deleted.'));
  return h(
    'section',
    { class: 'danger-zone', 'aria-label': t('Delete the realm') },
    h('h3', {}, t('Delete the realm')),
    h('p', {}, t('Its clients, people, scopes, journeys, providers, keys and tokens go with it, and its issuer stops answering.')),
    deleteButton(realm, t('Delete the realm {realm} and everything in it? This cannot be undone.', { realm }), async () => {
      await api.deleteRealm(realm);
      location.hash = '#/realms';
      say(t('Realm {realm} deleted.', { realm }));
    }, 'deleteRealm'),
  );
}
