import type { z } from 'zod';
import type { SchemaName } from './schemas.js';

/**
 * An operation of the admin API as the document describes it: each names the very zod
 * schemas its route validates with (request bodies, path and query parameters) and the
 * schemas of its answers (./schemas.ts). The operations of each resource are in
 * ./operations/; a route added to the router and not there fails test/admin/openapi.test.ts.
 */

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type ErrorStatus = 400 | 401 | 404 | 409 | 413 | 415;

export interface PathParameter {
  schema: z.ZodType;
  description: string;
  example: string;
}

export interface QueryParameters {
  /** The strict object schema the route parses its query with: one parameter per property. */
  schema: z.ZodObject;
  parameters: Readonly<Record<string, { description: string; example?: string }>>;
}

export interface Response {
  description: string;
  schema?: SchemaName;
  /** The answer is an array of `schema`. */
  list?: boolean;
  headers?: Readonly<Record<string, string>>;
}

export interface Operation {
  method: Method;
  /** As the router has it: `/admin/realms/:realm`. */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  body?: { schema: SchemaName; example: unknown };
  query?: QueryParameters;
  /** Success answers by status. */
  responses: Readonly<Partial<Record<200 | 201 | 202 | 204, Response>>>;
  /** Refusals beside 401 (every call), 400 (a body or query), 404 (a path parameter), 413 and 415 (a body). */
  errors?: readonly ErrorStatus[];
}

export const DELETED = { 204: { description: 'Deleted' } } as const;
export const MERGES = 'Only the fields sent change; `null` clears an optional field.';
