import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { OAuthError } from '../errors.js';
import { MAX_RESOURCE_IDENTIFIER_LENGTH, RESOURCE_IDENTIFIER_RULE, isResourceIdentifier } from '../resources/identifier.js';
import type { Resource } from '../store/resources.js';
import type { AdminDeps } from './deps.js';
import { DescriptionsSchema, ScopePathSchema } from './scopes.js';
import { notFound, parseInput } from './validate.js';

type Params = { Params: { realm: string } };

export const resourceIdentifier = z.string().max(MAX_RESOURCE_IDENTIFIER_LENGTH).refine(isResourceIdentifier, RESOURCE_IDENTIFIER_RULE);

/** Names a person reads on the consent page: no control or line-breaking characters. */
const PRINTABLE = /^[^\u0000-\u001f\u007f-\u009f\u2028\u2029]+$/;

export const ResourcePutSchema = z.strictObject({
  identifier: resourceIdentifier.describe('The resource\'s identifier: an absolute URI without a fragment (RFC 8707 §2), compared as it is written. It keys the resource'),
  name: z
    .string()
    .min(1)
    .max(200)
    .regex(PRINTABLE, 'must hold no control characters')
    .nullable()
    .optional()
    .describe('What the consent page calls it; left out: kept (none for a new resource); null: none, the page shows the identifier'),
  descriptions: DescriptionsSchema.nullable()
    .optional()
    .describe('What the consent page calls it in English, German and French, before `name`; left out: kept (none for a new resource); null: none'),
  scopes: z
    .array(ScopePathSchema.shape.name)
    .max(100)
    .refine((scopes) => new Set(scopes).size === scopes.length, 'names a scope twice')
    .nullable()
    .optional()
    .describe(
      'The scopes that mean something at it, each a scope of the realm: an access token for it carries only these of the scopes asked. ' +
        'Left out: kept (none for a new resource); null: none, a token for it carries any scope asked',
    ),
});

export const ResourceQuerySchema = z.strictObject({ identifier: resourceIdentifier.optional() });

/** A resource as the admin API shows it: `name`, `descriptions` and `scopes` only when it has them. */
export function resourceView(resource: Resource) {
  return {
    identifier: resource.identifier,
    ...(resource.name === undefined ? {} : { name: resource.name }),
    ...(resource.descriptions === undefined ? {} : { descriptions: { ...resource.descriptions } }),
    ...(resource.scopes === undefined ? {} : { scopes: [...resource.scopes] }),
  };
}

/**
 * `/admin/realms/{realm}/resources` (CONTRACT.md §10): the realm's registered resources (APIs),
 * which any of its clients may ask tokens for with `resource` (RFC 8707). Keyed by their
 * identifier, a URI, which goes in the query (`?identifier=`) rather than the path.
 */
export function resourceRoutes({ store }: AdminDeps): FastifyPluginAsync {
  return async (app) => {
    app.get<Params>('/resources', async (request) => {
      const { identifier } = parseInput(ResourceQuerySchema, { ...(request.query as object) });
      if (identifier === undefined) return (await store.resources.list(request.realm.name)).map(resourceView);
      const resource = await store.resources.get(request.realm.name, identifier);
      if (!resource) throw notFound('resource');
      return resourceView(resource);
    });

    app.put<Params>('/resources', async (request, reply) => {
      const change = parseInput(ResourcePutSchema, request.body);
      const saved = await store.resources.put(request.realm.name, change);
      if (saved.missingScopes !== undefined) {
        throw new OAuthError('invalid_request', `scopes: no such scope in the realm: ${saved.missingScopes.slice(0, 5).join(', ')}`);
      }
      return reply.code(saved.created ? 201 : 200).send(resourceView(saved.resource));
    });

    app.delete<Params>('/resources', async (request, reply) => {
      const { identifier } = parseInput(ResourceQuerySchema, { ...(request.query as object) });
      if (identifier === undefined) throw new OAuthError('invalid_request', 'identifier: the query must name the resource to delete');
      if (!(await store.resources.delete(request.realm.name, identifier))) throw notFound('resource');
      return reply.code(204).send();
    });
  };
}
