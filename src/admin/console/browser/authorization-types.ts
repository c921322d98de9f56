/**
 * The admin console's authorization-types module: the realm setting authorization_details_types
 * (RFC 9396, CONTRACT.md §13), a JSON Schema of one entry per type, edited as a list of types:
 * each its name, the title and description the consent page shows (the schema's `title` and
 * `description`), and the rest of its schema as JSON, checked before it is sent.
 */
import { field, h, jsonObject } from './dom.js';
import { t } from './i18n.js';
import { settingLabel } from './setting-sections.js';

export const AUTHORIZATION_TYPES = 'authorization_details_types';

let rows = 0;

const input = (row: HTMLElement, part: string): HTMLInputElement | HTMLTextAreaElement =>
  row.querySelector<HTMLInputElement | HTMLTextAreaElement>('[data-part="' + part + '"]')!;

/** One type's fields, filled from its schema; its Remove button takes it out of the list. */
function typeRow(name: string, schema: Record<string, unknown>): HTMLElement {
  const { title, description, ...rest } = schema;
  const id = AUTHORIZATION_TYPES + '.' + ++rows;
  const row: HTMLElement = h(
    'fieldset',
    { class: 'authorization-type' },
    h('legend', {}, name === '' ? t('New type') : t('Type {type}', { type: name })),
    field(t('Type name'), h('input', { name: id + '.name', 'data-part': 'name', maxlength: 100, spellcheck: 'false', autocomplete: 'off', value: name }), t('As clients send it in type, e.g. payment_initiation.')),
    field(t('Title'), h('input', { name: id + '.title', 'data-part': 'title', maxlength: 200, value: typeof title === 'string' ? title : '' }), t('What the consent page calls an entry of this type; empty: its name.')),
    field(t('Description'), h('input', { name: id + '.description', 'data-part': 'description', maxlength: 1000, value: typeof description === 'string' ? description : '' })),
    field(
      t('Schema (JSON)'),
      h('textarea', { name: id + '.schema', 'data-part': 'schema', rows: 6, spellcheck: 'false', class: 'code', value: JSON.stringify(rest, null, 2) }),
      t('A JSON Schema (draft-07) of one entry; the fields a person must see on the consent page have a title.'),
    ),
    h('button', { type: 'button', 'aria-label': name === '' ? t('Remove the new type') : t('Remove the type {type}', { type: name }), onclick: () => row.remove() }, t('Remove')),
  );
  return row;
}

/** The setting's control: the realm's types, and a button that adds an empty one. */
export function authorizationTypesControl(value: Record<string, unknown>): HTMLElement {
  const list = h('div', { class: 'authorization-types' }, Object.entries(value).map(([name, schema]) => typeRow(name, schema as Record<string, unknown>)));
  const add = () => {
    const row = typeRow('', { type: 'object' });
    list.append(row);
    input(row, 'name').focus();
  };
  return h(
    'fieldset',
    { class: 'wide', 'data-setting': AUTHORIZATION_TYPES },
    h('legend', {}, settingLabel(AUTHORIZATION_TYPES)),
    h('small', {}, h('code', {}, AUTHORIZATION_TYPES), ' · ', t('The kinds of authorization details (RFC 9396) clients may ask for; a client may use those its record lists.')),
    list,
    h('button', { type: 'button', onclick: add }, t('Add a type')),
  );
}

/** The setting as the form says it; a type without a name, a name twice or a schema that is not a JSON object is refused here. */
export function authorizationTypesOf(form: HTMLFormElement): Record<string, unknown> {
  const types: Record<string, unknown> = {};
  for (const row of form.querySelectorAll<HTMLElement>('[data-setting="' + AUTHORIZATION_TYPES + '"] .authorization-type')) {
    const name = input(row, 'name').value.trim();
    if (name === '') throw new Error(t('{setting}: each type needs a name.', { setting: AUTHORIZATION_TYPES }));
    if (Object.hasOwn(types, name)) throw new Error(t('{setting}: the type {type} is listed twice.', { setting: AUTHORIZATION_TYPES, type: name }));
    const schemaInput = input(row, 'schema');
    let schema: Record<string, unknown>;
    try {
      schema = jsonObject(schemaInput.value, t('Schema of {type}', { type: name })) ?? {};
      schemaInput.removeAttribute('aria-invalid');
    } catch (error) {
      schemaInput.setAttribute('aria-invalid', 'true');
      schemaInput.focus();
      throw error;
    }
    const title = input(row, 'title').value.trim();
    const description = input(row, 'description').value.trim();
    types[name] = { ...schema, ...(title ? { title } : {}), ...(description ? { description } : {}) };
  }
  return types;
}
