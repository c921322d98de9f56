/**
 * The admin console's scopes module: a realm's scopes with the claims their tokens carry, a new
 * one (or a new description and claims), deletion once confirmed.
 */
import { api } from './api.js';
import type { MappedClaim, Scope } from './records.js';
import { control, deleteButton, field, guarded, h, say, setValue, table, valueOf } from './dom.js';
import { scopeClaimRows, scopeClaimsOf } from './scope-claims.js';

/** A mapped claim: its name, where its value comes from, where it goes. */
const claimLine = (claim: MappedClaim): string => claim.name + ' ← ' + claim.source + ' → ' + claim.tokens.join(', ');

export async function scopesView(realm: string, panel: HTMLElement) {
  const list = h('div');
  const claimRows = scopeClaimRows();
  /** The claims of the scope being edited: rows all removed clear them; a scope not opened keeps its own. */
  let opened: readonly MappedClaim[] = [];

  async function refresh() {
    const scopes = await api.scopes(realm);
    list.replaceChildren(
      table(
        'Scopes',
        ['Scope', 'Description', 'Claims', ''],
        scopes.map((scope) => [
          h('code', {}, scope.name),
          scope.description,
          (scope.claims ?? []).map(claimLine).join('\n'),
          h(
            'div',
            { class: 'actions' },
            h('button', { 'data-operation': 'putScope', type: 'button', 'aria-label': 'Edit ' + scope.name, onclick: () => edit(scope) }, 'Edit'),
            deleteButton(scope.name, 'Delete the scope ' + scope.name + '? Clients that list it must let go of it first.', () => remove(scope.name), 'deleteScope'),
          ),
        ]),
      ),
    );
  }

  async function remove(name: string) {
    await api.deleteScope(realm, name);
    say('Scope ' + name + ' deleted.');
    await refresh();
  }

  function edit(scope: Scope) {
    setValue(form, 'name', scope.name);
    setValue(form, 'description', scope.description);
    opened = scope.claims ?? [];
    claimRows.fill(opened);
    control(form, 'description').focus();
  }

  const form = h(
    'form',
    { 'aria-label': 'New scope' },
    h('h3', {}, 'New scope'),
    field('Scope name', h('input', { name: 'name', required: true, maxlength: 128, autocomplete: 'off' })),
    field('Description', h('input', { name: 'description', required: true, maxlength: 1000 }), 'Shown on the consent page. An existing scope keeps its name and takes this description.'),
    claimRows.element,
    h('button', { 'data-operation': 'putScope', type: 'submit', class: 'primary' }, 'Save scope'),
  );
  form.addEventListener('submit', guarded(async () => {
    const claims = scopeClaimsOf(form);
    const body = { description: valueOf(form, 'description').trim(), ...(claims.length > 0 || opened.length > 0 ? { claims } : {}) };
    const scope = await api.putScope(realm, valueOf(form, 'name').trim(), body);
    say('Scope ' + scope.name + ' saved.');
    for (const name of ['name', 'description']) setValue(form, name, '');
    opened = [];
    claimRows.fill([]);
    await refresh();
  }));

  await refresh();
  panel.replaceChildren(list, form);
}
