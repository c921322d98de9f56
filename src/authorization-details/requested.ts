import { isDeepStrictEqual } from 'node:util';
import { OAuthError } from '../errors.js';
import { nestsDeeperThan } from '../json-depth.js';
import { type AuthorizationDetail, type AuthorizationDetailsTypes, type CompiledTypes, compileTypes } from '../records/authorization-details.js';
import type { RealmSettings } from '../records/realm-settings.js';

/** The most entries one request may carry. */
const MAX_ENTRIES = 20;
/** How deep its entries may nest. */
const MAX_DEPTH = 8;
/**
 * The longest string or key an entry may hold: the schemas' patterns take time linear in it
 * (src/authorization-details/linear-pattern.ts), and so do their formats.
 */
export const MAX_STRING_LENGTH = 1000;

/** The client fields that say which types it may use (RFC 9396 §10 `authorization_details_types`). */
export interface DetailsClient {
  readonly authorization_details_types?: readonly string[] | undefined;
}

/**
 * The compiled validators of a realm's types, compiled once per version of its settings: the
 * realm cache hands out one settings object per version, and an invalidation (an admin's
 * change, on any instance) brings a new one, which compiles again.
 */
const compiledBySettings = new WeakMap<AuthorizationDetailsTypes, CompiledTypes>();

export function compiledTypesOf(settings: RealmSettings): CompiledTypes {
  const types = settings.authorization_details_types;
  let compiled = compiledBySettings.get(types);
  if (!compiled) {
    compiled = compileTypes(types, true);
    compiledBySettings.set(types, compiled);
  }
  return compiled;
}

const invalid = (description: string) => new OAuthError('invalid_authorization_details', description);

/** RFC 9396 §2: `authorization_details` as a request carries it: a JSON array, as text; none when absent. */
export function requestedAuthorizationDetails(value: string | undefined, settings: RealmSettings, client: DetailsClient): AuthorizationDetail[] | undefined {
  if (value === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw invalid('authorization_details must be a JSON array');
  }
  return checkedAuthorizationDetails(parsed, settings, client);
}

/**
 * RFC 9396 §5: each entry an object of a type the realm describes and the client may use, which
 * the type's JSON Schema accepts. The description names the entry and the rule, never its values.
 */
export function checkedAuthorizationDetails(parsed: unknown, settings: RealmSettings, client: DetailsClient): AuthorizationDetail[] {
  if (!Array.isArray(parsed) || parsed.length === 0) throw invalid('authorization_details must be a JSON array of at least one object');
  if (parsed.length > MAX_ENTRIES) throw invalid(`authorization_details holds more than ${MAX_ENTRIES} entries`);
  if (nestsDeeperThan(parsed, MAX_DEPTH)) throw invalid(`authorization_details nests deeper than ${MAX_DEPTH} levels`);
  if (holdsLongerString(parsed, MAX_STRING_LENGTH)) throw invalid(`authorization_details holds a string or a key longer than ${MAX_STRING_LENGTH} characters`);
  const compiled = compiledTypesOf(settings);
  return parsed.map((entry: unknown, index) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw invalid(`entry ${index} must be an object`);
    const type: unknown = (entry as Record<string, unknown>).type;
    if (typeof type !== 'string') throw invalid(`entry ${index} must have a string type`);
    const validate = compiled.get(type);
    if (!validate) throw invalid(`entry ${index}: the type is not one of this realm's`);
    if (!client.authorization_details_types?.includes(type)) throw invalid(`entry ${index}: the client may not use this type`);
    if (!validate(entry)) {
      const error = validate.errors?.[0];
      throw invalid(`entry ${index} (${type}) is refused by its schema: ${error?.instancePath || '/'} ${error?.message ?? 'is invalid'}`);
    }
    return entry as AuthorizationDetail;
  });
}

/** Whether a string or key of `value` (no deeper than MAX_DEPTH) is longer than `max`. */
function holdsLongerString(value: unknown, max: number): boolean {
  if (typeof value === 'string') return value.length > max;
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(value).some(([key, child]) => key.length > max || holdsLongerString(child, max));
}

/**
 * RFC 9396 §6.1, §7: a token request may ask for part of what was granted, never more: each
 * entry asked must be one granted, as it was granted (a changed field is another entry). None
 * asked: all that was granted.
 */
export function narrowedAuthorizationDetails(
  value: string | undefined,
  granted: readonly AuthorizationDetail[] | undefined,
  settings: RealmSettings,
  client: DetailsClient,
): readonly AuthorizationDetail[] | undefined {
  if (value === undefined) return granted;
  const asked = requestedAuthorizationDetails(value, settings, client)!;
  const outside = asked.findIndex((entry) => !granted?.some((grantedEntry) => isDeepStrictEqual(entry, grantedEntry)));
  if (outside >= 0) throw invalid(`entry ${outside} was not granted: a token may carry only what was granted`);
  return asked;
}
