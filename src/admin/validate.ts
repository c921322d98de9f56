import type { z } from 'zod';
import { OAuthError } from '../errors.js';

/** The body or parameters checked against `schema`; every problem named in one invalid_request. */
export function parseInput<Schema extends z.ZodType>(schema: Schema, input: unknown): z.output<Schema> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`);
  throw new OAuthError('invalid_request', problems.join('; '));
}

export const notFound = (what: string): OAuthError => new OAuthError('not_found', `no such ${what}`);
export const conflict = (description: string): OAuthError => new OAuthError('conflict', description);
