/**
 * The admin console's roles module: a realm's roles, and its groups with the roles their
 * members hold (CONTRACT.md §10): lists, a new one or a change, deletion once confirmed. A
 * person's own roles and groups are given on the Users tab.
 */
import { api } from './api.js';
import type { Group, Role } from './records.js';
import { checkbox, control, deleteButton, field, guarded, h, isChecked, say, setChecked, setValue, table, valueOf } from './dom.js';

const NAME_HINT = 'Letters, digits, ".", "_", ":" and "-", starting with a letter or digit. An existing one of that name is changed.';

export async function rolesView(realm: string, panel: HTMLElement) {
  const list = h('div');

  async function refresh() {
    const roles = await api.roles(realm);
    list.replaceChildren(
      table(
        'Roles',
        ['Role', 'Description', ''],
        roles.map((role) => [
          h('code', {}, role.name),
          role.description,
          h(
            'div',
            { class: 'actions' },
            h('button', { 'data-operation': 'putRole', type: 'button', 'aria-label': 'Edit ' + role.name, onclick: () => edit(role) }, 'Edit'),
            deleteButton(role.name, 'Delete the role ' + role.name + '? It is taken from every group and person that has it.', () => remove(role.name), 'deleteRole'),
          ),
        ]),
      ),
    );
  }

  async function remove(name: string) {
    await api.deleteRole(realm, name);
    say('Role ' + name + ' deleted.');
    await refresh();
  }

  function edit(role: Role) {
    setValue(form, 'name', role.name);
    setValue(form, 'description', role.description);
    control(form, 'description').focus();
  }

  const form = h(
    'form',
    { 'aria-label': 'Save a role' },
    h('h3', {}, 'Save a role'),
    field('Role name', h('input', { name: 'name', required: true, maxlength: 128, autocomplete: 'off', spellcheck: 'false' }), NAME_HINT),
    field('Description', h('input', { name: 'description', maxlength: 1000 }), 'What the role allows.'),
    h('button', { 'data-operation': 'putRole', type: 'submit', class: 'primary' }, 'Save role'),
  );
  form.addEventListener('submit', guarded(async () => {
    const role = await api.putRole(realm, valueOf(form, 'name').trim(), { description: valueOf(form, 'description').trim() });
    say('Role ' + role.name + ' saved.');
    setValue(form, 'name', '');
    setValue(form, 'description', '');
    await refresh();
  }));

  await refresh();
  panel.replaceChildren(
    h('p', {}, 'A person holds their own roles and those of their groups; a scope\'s claims may carry them into tokens (Scopes tab).'),
    list,
    form,
  );
}

export async function groupsView(realm: string, panel: HTMLElement) {
  const list = h('div');
  const roleNames = (await api.roles(realm)).map((role) => role.name);
  const roleBoxes = h(
    'fieldset',
    {},
    h('legend', {}, 'Roles its members hold'),
    roleNames.length === 0 ? h('p', { class: 'empty' }, 'The realm has no roles yet (Roles tab).') : roleNames.map((name) => checkbox(name, 'role:' + name, false)),
  );

  async function refresh() {
    const groups = await api.groups(realm);
    list.replaceChildren(
      table(
        'Groups',
        ['Group', 'Roles', 'Description', ''],
        groups.map((group) => [
          h('code', {}, group.name),
          group.roles.join(', '),
          group.description,
          h(
            'div',
            { class: 'actions' },
            h('button', { 'data-operation': 'putGroup', type: 'button', 'aria-label': 'Edit ' + group.name, onclick: () => edit(group) }, 'Edit'),
            deleteButton(group.name, 'Delete the group ' + group.name + '? Its members leave it, and lose the roles it gave them.', () => remove(group.name), 'deleteGroup'),
          ),
        ]),
      ),
    );
  }

  async function remove(name: string) {
    await api.deleteGroup(realm, name);
    say('Group ' + name + ' deleted.');
    await refresh();
  }

  function edit(group: Group) {
    setValue(form, 'name', group.name);
    setValue(form, 'description', group.description);
    for (const name of roleNames) setChecked(form, 'role:' + name, group.roles.includes(name));
    control(form, 'description').focus();
  }

  const form = h(
    'form',
    { 'aria-label': 'Save a group' },
    h('h3', {}, 'Save a group'),
    field('Group name', h('input', { name: 'name', required: true, maxlength: 128, autocomplete: 'off', spellcheck: 'false' }), NAME_HINT),
    field('Description', h('input', { name: 'description', maxlength: 1000 }), 'Who the group is.'),
    roleBoxes,
    h('button', { 'data-operation': 'putGroup', type: 'submit', class: 'primary' }, 'Save group'),
  );
  form.addEventListener('submit', guarded(async () => {
    const roles = roleNames.filter((name) => isChecked(form, 'role:' + name));
    const group = await api.putGroup(realm, valueOf(form, 'name').trim(), { description: valueOf(form, 'description').trim(), roles });
    say('Group ' + group.name + ' saved.');
    setValue(form, 'name', '');
    setValue(form, 'description', '');
    for (const name of roleNames) setChecked(form, 'role:' + name, false);
    await refresh();
  }));

  await refresh();
  panel.replaceChildren(
    h('p', {}, 'The members of a group hold its roles. People join groups on the Users tab.'),
    list,
    form,
  );
}
