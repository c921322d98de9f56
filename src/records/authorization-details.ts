import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { z } from 'zod';
import { linearRegExp } from '../authorization-details/linear-pattern.js';

/** RFC 9396 §2: one entry of `authorization_details`: an object whose `type` names its kind. */
export type AuthorizationDetail = Readonly<{ type: string } & Record<string, unknown>>;

/** A type name: printable ASCII without spaces (a URI or a short name), as RFC 9396 §2 leaves it to the server. */
export const AUTHORIZATION_DETAILS_TYPE = /^[\x21-\x7e]{1,200}$/;
/** The most types a realm may describe. */
const MAX_TYPES = 50;
/** The most characters of one type's schema, as JSON. */
const MAX_SCHEMA_LENGTH = 20_000;

export type AuthorizationDetailsTypes = Readonly<Record<string, Readonly<Record<string, unknown>>>>;
/** The compiled validator of each type of a realm. */
export type CompiledTypes = ReadonlyMap<string, ValidateFunction>;

/**
 * Compiles each type's JSON Schema (draft-07, with the formats of ajv-formats). Strict schemas
 * refuse a keyword Ajv does not know, so that a typo in a schema is an error when it is set
 * rather than a rule that silently checks nothing. One Ajv per realm keeps one realm's `$id`s
 * apart from another's. Every `pattern` and `patternProperties` key is matched in linear time
 * (src/authorization-details/linear-pattern.ts): a realm's schema is applied to anyone's
 * request, and a backtracking engine lets `^(a+)+$` take minutes over 30 characters. Throws with
 * the type's name when a schema does not compile; `leaveOutBroken` leaves such a type out instead
 * (a realm stored before a rule its schema breaks: the type is then unknown, not a fault).
 */
export function compileTypes(types: AuthorizationDetailsTypes, leaveOutBroken = false): CompiledTypes {
  const ajv = new Ajv({
    strictSchema: true,
    strictNumbers: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    allErrors: false,
    code: { regExp: linearRegExp },
  });
  addFormats.default(ajv);
  const compiled = new Map<string, ValidateFunction>();
  for (const [type, schema] of Object.entries(types)) {
    try {
      compiled.set(type, ajv.compile(schema));
    } catch (error) {
      if (!leaveOutBroken) throw new Error(`${type}: ${(error as Error).message}`);
    }
  }
  return compiled;
}

/** The realm setting `authorization_details_types` (CONTRACT.md §13): a JSON Schema of one entry per type. */
export const authorizationDetailsTypesSetting = z
  .record(z.string().regex(AUTHORIZATION_DETAILS_TYPE, 'must be a type name (printable ASCII, no spaces)'), z.record(z.string(), z.unknown()))
  .refine((types) => Object.keys(types).length <= MAX_TYPES, `at most ${MAX_TYPES} types`)
  .refine((types) => Object.values(types).every((schema) => JSON.stringify(schema).length <= MAX_SCHEMA_LENGTH), `each schema at most ${MAX_SCHEMA_LENGTH} characters`)
  .superRefine((types, context) => {
    try {
      compileTypes(types);
    } catch (error) {
      context.addIssue({ code: 'custom', message: `a schema does not compile: ${(error as Error).message}` });
    }
  });

/** The client field `authorization_details_types` (RFC 9396 §10): the types it may ask for. */
export const clientAuthorizationDetailsTypes = z
  .array(z.string().regex(AUTHORIZATION_DETAILS_TYPE, 'must be a type name (printable ASCII, no spaces)'))
  .max(MAX_TYPES)
  .refine((values) => new Set(values).size === values.length, 'types must not repeat')
  .describe("The `authorization_details` types it may ask for (RFC 9396 §10), among the realm's `authorization_details_types`; absent: none");

/** The title a realm gives a type or a field in its schema (JSON Schema `title`), if it is a string. */
export function titleOf(schema: unknown): string | undefined {
  if (typeof schema !== 'object' || schema === null || !Object.hasOwn(schema, 'title')) return undefined;
  const title = (schema as { title: unknown }).title;
  return typeof title === 'string' && title.trim() !== '' ? title : undefined;
}
