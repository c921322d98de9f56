import { LRUCache } from 'lru-cache';

/**
 * Values that recur across many cached rows (a client's grant types, its authentication
 * method, an empty list), held once rather than once per row: JSON.parse gives every row its
 * own copies, and with 100,000 clients cached the copies took more memory than the rest of
 * each entry. Lists are frozen, since rows share them. Bounded, the least recently met value
 * going first: the values that recur stay, while those of one row only (a client's name, its
 * redirect URIs) pass through. A plain map that stopped holding at its bound filled with the
 * first rows' own values, and never shared a value first met after that.
 */
const MAX_VALUES = 10_000;
/** Longer strings are rarely repeated (redirect URIs, names). */
const MAX_STRING = 64;

const held = new LRUCache<string, string | readonly string[]>({ max: MAX_VALUES });

function hold<T extends string | readonly string[]>(key: string, value: T): T {
  const existing = held.get(key);
  if (existing !== undefined) return existing as T;
  held.set(key, value);
  return value;
}

function shared(value: unknown): unknown {
  if (typeof value === 'string') return value.length <= MAX_STRING ? hold(value, value) : value;
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) {
    // A NUL cannot start a string of JSON's text form, so list keys never meet string keys.
    return hold(`\0${JSON.stringify(value)}`, Object.freeze(value.map(shared) as string[]));
  }
  return value;
}

/**
 * Replaces the record's own values (strings and lists of strings) with shared ones, in place,
 * and returns it: for a record just parsed, that no one else holds.
 */
export function withSharedValues<T extends object>(record: T): T {
  const values = record as Record<string, unknown>;
  for (const name of Object.keys(values)) values[name] = shared(values[name]);
  return record;
}
