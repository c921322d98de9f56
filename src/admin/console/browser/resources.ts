/**
 * The admin console's resources module: a realm's registered resources (APIs, CONTRACT.md §10),
 * which its clients may ask tokens for with `resource` (RFC 8707): a list, a new one or a
 * change, deletion once confirmed.
 */
import { api } from './api.js';
import type { Resource } from './records.js';
import { control, deleteButton, field, guarded, h, same, say, setValue, table, valueOf } from './dom.js';
import { shownBeside } from './form-errors.js';
import { t } from './i18n.js';
import { type LocalisedTexts, localisedFields, localisedOf, setLocalised } from './localised-fields.js';

/** A resource as the admin API answers it, with its descriptions by language when it has them. */
type DescribedResource = Resource & { descriptions?: LocalisedTexts };

export async function resourcesView(realm: string, panel: HTMLElement) {
  const list = h('div');
  /** The descriptions of the resource being edited: sent only when they change, all emptied: cleared. */
  let opened: { identifier: string; descriptions: LocalisedTexts } | undefined;

  async function refresh() {
    const resources: DescribedResource[] = await api.resources(realm);
    list.replaceChildren(
      table(
        t('Resources'),
        [t('Identifier'), t('Name'), t('Scopes'), ''],
        resources.map((resource) => [
          h('code', {}, resource.identifier),
          resource.name ?? '',
          resource.scopes ? resource.scopes.join(' ') : t('any'),
          h(
            'div',
            { class: 'actions' },
            h('button', { 'data-operation': 'putResource', type: 'button', 'aria-label': t('Edit {name}', { name: resource.identifier }), onclick: () => edit(resource) }, t('Edit')),
            deleteButton(resource.identifier, t('Unregister {identifier}? Clients can no longer ask tokens for it, unless they list it themselves.', { identifier: resource.identifier }), () => remove(resource.identifier), 'deleteResource'),
          ),
        ]),
      ),
    );
  }

  async function remove(identifier: string) {
    await api.deleteResource(realm, identifier);
    say(t('Resource {identifier} deleted.', { identifier }));
    await refresh();
  }

  function edit(resource: DescribedResource) {
    opened = { identifier: resource.identifier, descriptions: resource.descriptions ?? {} };
    setLocalised(form, 'descriptions', resource.descriptions);
    setValue(form, 'identifier', resource.identifier);
    setValue(form, 'name', resource.name ?? '');
    setValue(form, 'scopes', (resource.scopes ?? []).join(' '));
    control(form, 'name').focus();
  }

  const form = h(
    'form',
    { 'aria-label': t('Save a resource') },
    h('h3', {}, t('Save a resource')),
    field(t('Identifier'), h('input', { name: 'identifier', required: true, maxlength: 2000, autocomplete: 'off', spellcheck: 'false' }), t('An absolute URI without a fragment, as clients send it in resource. An existing resource of that identifier is changed.')),
    field(t('Name'), h('input', { name: 'name', maxlength: 200 }), t('What the consent page calls it; empty: its identifier.')),
    localisedFields(t('Description by language'), 'descriptions', undefined, t('What the consent page calls it in each language, before its name; empty: its name.'), 1000),
    field(t('Scopes'), h('input', { name: 'scopes', spellcheck: 'false' }), t('The realm\'s scopes that mean something at it, separated by spaces: a token for it carries only these of the scopes asked. Empty: any scope asked.')),
    h('button', { 'data-operation': 'putResource', type: 'submit', class: 'primary' }, t('Save resource')),
  );
  form.addEventListener('submit', guarded(shownBeside(form, async () => {
    const scopes = valueOf(form, 'scopes').trim().split(/\s+/).filter(Boolean);
    const identifier = valueOf(form, 'identifier').trim();
    const descriptions = localisedOf(form, 'descriptions');
    const before = opened?.identifier === identifier ? opened.descriptions : {};
    const resource = await api.putResource(realm, {
      identifier,
      ...(same(descriptions, before) ? {} : { descriptions: Object.keys(descriptions).length > 0 ? descriptions : null }),
      name: valueOf(form, 'name').trim() || null,
      scopes: scopes.length > 0 ? scopes : null,
    });
    say(t('Resource {identifier} saved.', { identifier: resource.identifier }));
    for (const name of ['identifier', 'name', 'scopes']) setValue(form, name, '');
    setLocalised(form, 'descriptions', undefined);
    opened = undefined;
    await refresh();
  })));

  await refresh();
  panel.replaceChildren(
    h('p', {}, t('Any client of the realm may ask a token for a registered resource with the resource parameter; the token\'s aud is the resources asked.')),
    list,
    form,
  );
}
