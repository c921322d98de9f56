import { type AuthorizationDetail, type AuthorizationDetailsTypes, titleOf } from '../records/authorization-details.js';

/** A value as the consent page shows it: the page words numbers and yes/no in its language. */
export type ShownValue = string | number | boolean | readonly ShownValue[] | { readonly fields: readonly ShownField[] };
export interface ShownField {
  readonly label: string;
  readonly value: ShownValue;
}

/** One entry of `authorization_details` as the person reads it on the consent page (RFC 9396 §3). */
export interface DescribedDetail {
  /** The type's `title` in the realm's schema, else the type. */
  readonly title: string;
  readonly fields: readonly ShownField[];
}

/** Bounds on what one entry shows, so that an entry cannot flood the page. */
const MAX_FIELDS = 20;
const MAX_TEXT = 300;
const MAX_DEPTH = 3;

/**
 * The entries in words: each the title of its type and the fields a person must see, which the
 * realm marks by giving them a `title` in the type's schema (`properties`, nested objects alike),
 * in the order the stored schema keeps (jsonb's: shorter names first). Fields without a title
 * are the client's business and are not shown.
 */
export function describedDetails(types: AuthorizationDetailsTypes, details: readonly AuthorizationDetail[]): DescribedDetail[] {
  return details.map((entry) => {
    const schema = Object.hasOwn(types, entry.type) ? types[entry.type] : undefined;
    return { title: titleOf(schema) ?? entry.type, fields: titledFields(schema, entry, 0) };
  });
}

function titledFields(schema: unknown, value: Readonly<Record<string, unknown>>, depth: number): ShownField[] {
  const properties = propertiesOf(schema);
  const fields: ShownField[] = [];
  for (const [name, property] of Object.entries(properties)) {
    const label = titleOf(property);
    if (label === undefined || !Object.hasOwn(value, name)) continue;
    const shown = shownValue(property, value[name], depth);
    if (shown !== undefined) fields.push({ label, value: shown });
    if (fields.length === MAX_FIELDS) break;
  }
  return fields;
}

function shownValue(schema: unknown, value: unknown, depth: number): ShownValue | undefined {
  if (typeof value === 'string') return value.length > MAX_TEXT ? `${value.slice(0, MAX_TEXT)}…` : value;
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (depth >= MAX_DEPTH || value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    const items = itemsSchemaOf(schema);
    return value.slice(0, MAX_FIELDS).flatMap((item) => shownValue(items, item, depth + 1) ?? []);
  }
  // A nested object: its own titled fields, else each of its plain values by name.
  const record = value as Record<string, unknown>;
  const titled = titledFields(schema, record, depth + 1);
  if (titled.length > 0) return { fields: titled };
  return {
    fields: Object.entries(record)
      .slice(0, MAX_FIELDS)
      .flatMap(([label, item]) => (typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean' ? [{ label, value: shownValue(undefined, item, depth + 1)! }] : [])),
  };
}

function propertiesOf(schema: unknown): Readonly<Record<string, unknown>> {
  if (typeof schema !== 'object' || schema === null || !Object.hasOwn(schema, 'properties')) return {};
  const properties = (schema as { properties: unknown }).properties;
  return typeof properties === 'object' && properties !== null ? (properties as Record<string, unknown>) : {};
}

function itemsSchemaOf(schema: unknown): unknown {
  return typeof schema === 'object' && schema !== null && Object.hasOwn(schema, 'items') ? (schema as { items: unknown }).items : undefined;
}
