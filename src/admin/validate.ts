import type { z } from 'zod';
import { OAuthError } from '../errors.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../json-depth.js';
import { briefProblems } from '../http/input-limits.js';

/** The body or parameters checked against `schema`; the problems (the first few) named in one invalid_request. */
export function parseInput<Schema extends z.ZodType>(schema: Schema, input: unknown): z.output<Schema> {
  if (nestsDeeperThan(input)) throw new OAuthError('invalid_request', `body: nests deeper than ${MAX_JSON_DEPTH} levels`);
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  throw new OAuthError('invalid_request', briefProblems(result.error.issues));
}

export const notFound = (what: string): OAuthError => new OAuthError('not_found', `no such ${what}`);
export const conflict = (description: string): OAuthError => new OAuthError('conflict', description);
