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

/** `record`: the scope the URL names (`#/realms/{realm}/scopes/{name}`), opened in the form at once. */
export async function scopesView(realm: string, panel: HTMLElement, record?: string) {
  const list = h('div');
  // Opening a scope adds its URL to the history (back shows the list again, through main.ts's hashchange).
  const listUrl = '#/realms/' + encodeURIComponent(realm) + '/scopes';
  const urlOf = (name: string) => listUrl + '/' + encodeURIComponent(name);
  let scopes: Scope[] = [];
  const claimRows = scopeClaimRows();
  /** The claims of the scope being edited: rows all removed clear them; a scope not opened keeps its own. */
  let opened: readonly MappedClaim[] = [];

  async function refresh() {
    scopes = await api.scopes(realm);
    list.replaceChildren(
      table(
        'Scopes',
        ['Scope', 'Description', 'Claims', ''],
        scopes.map((scope) => [
          h('a', { href: urlOf(scope.name) }, h('code', {}, scope.name)),
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
    if (!location.href.endsWith(urlOf(scope.name))) history.pushState(null, '', urlOf(scope.name));
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
    if (!location.href.endsWith(listUrl)) history.pushState(null, '', listUrl);
    for (const name of ['name', 'description']) setValue(form, name, '');
    opened = [];
    claimRows.fill([]);
    await refresh();
  }));

  await refresh();
  panel.replaceChildren(list, form);
  if (record !== undefined) {
    const named = scopes.find((scope) => scope.name === record);
    if (named === undefined) throw new Error('The realm has no scope ' + record + '.');
    edit(named);
  }
}
