/**
 * The admin console's scopes module: a realm's scopes with the claims their tokens carry, a new
 * one (or a new description and claims), deletion once confirmed.
 */
import { api } from './api.js';
import type { MappedClaim, Scope } from './records.js';
import { control, deleteButton, field, guarded, h, say, setValue, table, valueOf } from './dom.js';
import { scopeClaimRows, scopeClaimsOf } from './scope-claims.js';
import { shownBeside } from './form-errors.js';
import { t } from './i18n.js';
import { type LocalisedTexts, localisedFields, localisedOf, setLocalised } from './localised-fields.js';

/** A scope as the admin API answers it, with its descriptions by language when it has them. */
type DescribedScope = Scope & { descriptions?: LocalisedTexts };

/** A mapped claim: its name, where its value comes from, where it goes. */
const claimLine = (claim: MappedClaim): string => claim.name + ' ← ' + claim.source + ' → ' + claim.tokens.join(', ');

/** `record`: the scope the URL names (`#/realms/{realm}/scopes/{name}`), opened in the form at once. */
export async function scopesView(realm: string, panel: HTMLElement, record?: string) {
  const list = h('div');
  // Opening a scope adds its URL to the history (back shows the list again, through main.ts's hashchange).
  const listUrl = '#/realms/' + encodeURIComponent(realm) + '/scopes';
  const urlOf = (name: string) => listUrl + '/' + encodeURIComponent(name);
  let scopes: DescribedScope[] = [];
  const claimRows = scopeClaimRows();
  /** The claims of the scope being edited: rows all removed clear them; a scope not opened keeps its own. */
  let opened: readonly MappedClaim[] = [];
  /** Whether the scope being edited has descriptions by language: emptied, they are cleared. */
  let openedDescriptions = false;

  async function refresh() {
    scopes = await api.scopes(realm);
    list.replaceChildren(
      table(
        t('Scopes'),
        [t('Scope'), t('Description'), t('Claims'), ''],
        scopes.map((scope) => [
          h('a', { href: urlOf(scope.name) }, h('code', {}, scope.name)),
          scope.description,
          (scope.claims ?? []).map(claimLine).join('\n'),
          h(
            'div',
            { class: 'actions' },
            h('button', { 'data-operation': 'putScope', type: 'button', 'aria-label': t('Edit {name}', { name: scope.name }), onclick: () => edit(scope) }, t('Edit')),
            deleteButton(scope.name, t('Delete the scope {name}? Clients that list it must let go of it first.', { name: scope.name }), () => remove(scope.name), 'deleteScope'),
          ),
        ]),
      ),
    );
  }

  async function remove(name: string) {
    await api.deleteScope(realm, name);
    say(t('Scope {name} deleted.', { name }));
    await refresh();
  }

  function edit(scope: DescribedScope) {
    setValue(form, 'name', scope.name);
    setValue(form, 'description', scope.description);
    setLocalised(form, 'descriptions', scope.descriptions);
    openedDescriptions = Object.keys(scope.descriptions ?? {}).length > 0;
    opened = scope.claims ?? [];
    claimRows.fill(opened);
    control(form, 'description').focus();
    if (!location.href.endsWith(urlOf(scope.name))) history.pushState(null, '', urlOf(scope.name));
  }

  const form = h(
    'form',
    { 'aria-label': t('New scope') },
    h('h3', {}, t('New scope')),
    field(t('Scope name'), h('input', { name: 'name', required: true, maxlength: 128, autocomplete: 'off' })),
    field(t('Description'), h('input', { name: 'description', required: true, maxlength: 1000 }), t('Shown on the consent page. An existing scope keeps its name and takes this description.')),
    localisedFields(t('Description by language'), 'descriptions', undefined, t('What the consent page says in each language; empty: the description above.'), 1000),
    claimRows.element,
    h('button', { 'data-operation': 'putScope', type: 'submit', class: 'primary' }, t('Save scope')),
  );
  form.addEventListener('submit', guarded(shownBeside(form, async () => {
    const claims = scopeClaimsOf(form);
    const descriptions = localisedOf(form, 'descriptions');
    const body = {
      description: valueOf(form, 'description').trim(),
      ...(Object.keys(descriptions).length > 0 || openedDescriptions ? { descriptions } : {}),
      ...(claims.length > 0 || opened.length > 0 ? { claims } : {}),
    };
    const scope = await api.putScope(realm, valueOf(form, 'name').trim(), body);
    say(t('Scope {name} saved.', { name: scope.name }));
    if (!location.href.endsWith(listUrl)) history.pushState(null, '', listUrl);
    for (const name of ['name', 'description']) setValue(form, name, '');
    setLocalised(form, 'descriptions', undefined);
    opened = [];
    openedDescriptions = false;
    claimRows.fill([]);
    await refresh();
  })));

  await refresh();
  panel.replaceChildren(list, form);
  if (record !== undefined) {
    const named = scopes.find((scope) => scope.name === record);
    if (named === undefined) throw new Error(t('The realm has no scope {name}.', { name: record }));
    edit(named);
  }
}
