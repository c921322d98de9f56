/**
 * The admin console's resources module: a realm's registered resources (APIs, CONTRACT.md §10),
 * which its clients may ask tokens for with `resource` (RFC 8707): a list, a new one or a
 * change, deletion once confirmed.
 */
import { api } from './api.js';
import type { Resource } from './records.js';
import { control, deleteButton, field, guarded, h, say, setValue, table, valueOf } from './dom.js';

export async function resourcesView(realm: string, panel: HTMLElement) {
  const list = h('div');

  async function refresh() {
    const resources = await api.resources(realm);
    list.replaceChildren(
      table(
        'Resources',
        ['Identifier', 'Name', 'Scopes', ''],
        resources.map((resource) => [
          h('code', {}, resource.identifier),
          resource.name ?? '',
          resource.scopes ? resource.scopes.join(' ') : 'any',
          h(
            'div',
            { class: 'actions' },
            h('button', { 'data-operation': 'putResource', type: 'button', 'aria-label': 'Edit ' + resource.identifier, onclick: () => edit(resource) }, 'Edit'),
            deleteButton(resource.identifier, 'Unregister ' + resource.identifier + '? Clients can no longer ask tokens for it, unless they list it themselves.', () => remove(resource.identifier), 'deleteResource'),
          ),
        ]),
      ),
    );
  }

  async function remove(identifier: string) {
    await api.deleteResource(realm, identifier);
    say('Resource ' + identifier + ' deleted.');
    await refresh();
  }

  function edit(resource: Resource) {
    setValue(form, 'identifier', resource.identifier);
    setValue(form, 'name', resource.name ?? '');
    setValue(form, 'scopes', (resource.scopes ?? []).join(' '));
    control(form, 'name').focus();
  }

  const form = h(
    'form',
    { 'aria-label': 'Save a resource' },
    h('h3', {}, 'Save a resource'),
    field('Identifier', h('input', { name: 'identifier', required: true, maxlength: 2000, autocomplete: 'off', spellcheck: 'false' }), 'An absolute URI without a fragment, as clients send it in resource. An existing resource of that identifier is changed.'),
    field('Name', h('input', { name: 'name', maxlength: 200 }), 'What the consent page calls it; empty: its identifier.'),
    field('Scopes', h('input', { name: 'scopes', spellcheck: 'false' }), 'The realm\'s scopes that mean something at it, separated by spaces: a token for it carries only these of the scopes asked. Empty: any scope asked.'),
    h('button', { 'data-operation': 'putResource', type: 'submit', class: 'primary' }, 'Save resource'),
  );
  form.addEventListener('submit', guarded(async () => {
    const scopes = valueOf(form, 'scopes').trim().split(/\s+/).filter(Boolean);
    const resource = await api.putResource(realm, {
      identifier: valueOf(form, 'identifier').trim(),
      name: valueOf(form, 'name').trim() || null,
      scopes: scopes.length > 0 ? scopes : null,
    });
    say('Resource ' + resource.identifier + ' saved.');
    for (const name of ['identifier', 'name', 'scopes']) setValue(form, name, '');
    await refresh();
  }));

  await refresh();
  panel.replaceChildren(
    h('p', {}, 'Any client of the realm may ask a token for a registered resource with the resource parameter; the token\'s aud is the resources asked.'),
    list,
    form,
  );
}
