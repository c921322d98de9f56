/**
 * The admin console's roles module: a realm's roles, and its groups with the roles their
 * members hold (CONTRACT.md §10): lists, a new one or a change, deletion once confirmed. A
 * person's own roles and groups are given on the Users tab.
 */
import { api } from './api.js';
import type { Group, Role } from './records.js';
import { checkbox, control, deleteButton, field, guarded, h, isChecked, say, setChecked, setValue, table, valueOf } from './dom.js';
import { t } from './i18n.js';

const nameHint = () => t('Letters, digits, ".", "_", ":" and "-", starting with a letter or digit. An existing one of that name is changed.');

export async function rolesView(realm: string, panel: HTMLElement) {
  const list = h('div');

  async function refresh() {
    const roles = await api.roles(realm);
    list.replaceChildren(
      table(
        t('Roles'),
        [t('Role'), t('Description'), ''],
        roles.map((role) => [
          h('code', {}, role.name),
          role.description,
          h(
            'div',
            { class: 'actions' },
            h('button', { 'data-operation': 'putRole', type: 'button', 'aria-label': t('Edit {name}', { name: role.name }), onclick: () => edit(role) }, t('Edit')),
            deleteButton(role.name, t('Delete the role {name}? It is taken from every group and person that has it.', { name: role.name }), () => remove(role.name), 'deleteRole'),
          ),
        ]),
      ),
    );
  }

  async function remove(name: string) {
    await api.deleteRole(realm, name);
    say(t('Role {name} deleted.', { name }));
    await refresh();
  }

  function edit(role: Role) {
    setValue(form, 'name', role.name);
    setValue(form, 'description', role.description);
    control(form, 'description').focus();
  }

  const form = h(
    'form',
    { 'aria-label': t('Save a role') },
    h('h3', {}, t('Save a role')),
    field(t('Role name'), h('input', { name: 'name', required: true, maxlength: 128, autocomplete: 'off', spellcheck: 'false' }), nameHint()),
    field(t('Description'), h('input', { name: 'description', maxlength: 1000 }), t('What the role allows.')),
    h('button', { 'data-operation': 'putRole', type: 'submit', class: 'primary' }, t('Save role')),
  );
  form.addEventListener('submit', guarded(async () => {
    const role = await api.putRole(realm, valueOf(form, 'name').trim(), { description: valueOf(form, 'description').trim() });
    say(t('Role {name} saved.', { name: role.name }));
    setValue(form, 'name', '');
    setValue(form, 'description', '');
    await refresh();
  }));

  await refresh();
  panel.replaceChildren(
    h('p', {}, t('A person holds their own roles and those of their groups; a scope\'s claims may carry them into tokens (Scopes tab).')),
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
    h('legend', {}, t('Roles its members hold')),
    roleNames.length === 0 ? h('p', { class: 'empty' }, t('The realm has no roles yet (Roles tab).')) : roleNames.map((name) => checkbox(name, 'role:' + name, false)),
  );

  async function refresh() {
    const groups = await api.groups(realm);
    list.replaceChildren(
      table(
        t('Groups'),
        [t('Group'), t('Roles'), t('Description'), ''],
        groups.map((group) => [
          h('code', {}, group.name),
          group.roles.join(', '),
          group.description,
          h(
            'div',
            { class: 'actions' },
            h('button', { 'data-operation': 'putGroup', type: 'button', 'aria-label': t('Edit {name}', { name: group.name }), onclick: () => edit(group) }, t('Edit')),
            deleteButton(group.name, t('Delete the group {name}? Its members leave it, and lose the roles it gave them.', { name: group.name }), () => remove(group.name), 'deleteGroup'),
          ),
        ]),
      ),
    );
  }

  async function remove(name: string) {
    await api.deleteGroup(realm, name);
    say(t('Group {name} deleted.', { name }));
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
    { 'aria-label': t('Save a group') },
    h('h3', {}, t('Save a group')),
    field(t('Group name'), h('input', { name: 'name', required: true, maxlength: 128, autocomplete: 'off', spellcheck: 'false' }), nameHint()),
    field(t('Description'), h('input', { name: 'description', maxlength: 1000 }), t('Who the group is.')),
    roleBoxes,
    h('button', { 'data-operation': 'putGroup', type: 'submit', class: 'primary' }, t('Save group')),
  );
  form.addEventListener('submit', guarded(async () => {
    const roles = roleNames.filter((name) => isChecked(form, 'role:' + name));
    const group = await api.putGroup(realm, valueOf(form, 'name').trim(), { description: valueOf(form, 'description').trim(), roles });
    say(t('Group {name} saved.', { name: group.name }));
    setValue(form, 'name', '');
    setValue(form, 'description', '');
    for (const name of roleNames) setChecked(form, 'role:' + name, false);
    await refresh();
  }));

  await refresh();
  panel.replaceChildren(
    h('p', {}, t('The members of a group hold its roles. People join groups on the Users tab.')),
    list,
    form,
  );
}
