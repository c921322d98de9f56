/** `scopes.js` of the admin console: a realm's scopes, a new one (or a new description), deletion once confirmed. */
export const SCOPES_JS = String.raw`import { api } from './api.js';
import { deleteButton, field, guarded, h, say, table } from './dom.js';

export async function scopesView(realm, panel) {
  const list = h('div');

  async function refresh() {
    const scopes = await api.scopes(realm);
    list.replaceChildren(
      table(
        'Scopes',
        ['Scope', 'Description', ''],
        scopes.map((scope) => [
          h('code', {}, scope.name),
          scope.description,
          h(
            'div',
            { class: 'actions' },
            h('button', { type: 'button', 'aria-label': 'Edit ' + scope.name, onclick: () => edit(scope) }, 'Edit'),
            deleteButton(scope.name, 'Delete the scope ' + scope.name + '? Clients that list it must let go of it first.', () => remove(scope.name)),
          ),
        ]),
      ),
    );
  }

  async function remove(name) {
    await api.deleteScope(realm, name);
    say('Scope ' + name + ' deleted.');
    await refresh();
  }

  function edit(scope) {
    form.elements.name.value = scope.name;
    form.elements.description.value = scope.description;
    form.elements.description.focus();
  }

  const form = h(
    'form',
    { 'aria-label': 'New scope' },
    h('h3', {}, 'New scope'),
    field('Scope name', h('input', { name: 'name', required: true, maxlength: 128, autocomplete: 'off' })),
    field('Description', h('input', { name: 'description', required: true, maxlength: 1000 }), 'Shown on the consent page. An existing scope keeps its name and takes this description.'),
    h('button', { type: 'submit', class: 'primary' }, 'Save scope'),
  );
  form.addEventListener('submit', guarded(async () => {
    const scope = await api.putScope(realm, form.elements.name.value.trim(), form.elements.description.value.trim());
    say('Scope ' + scope.name + ' saved.');
    form.elements.name.value = '';
    form.elements.description.value = '';
    await refresh();
  }));

  await refresh();
  panel.replaceChildren(list, form);
}
`;
