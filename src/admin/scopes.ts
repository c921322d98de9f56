import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { BUILTIN_SCOPES, SCOPE_TOKEN } from '../records/scope.js';
import type { Scope } from '../store/scopes.js';
import { ScopeClaimsSchema } from '../records/scope-claim.js';
import type { AdminDeps } from './deps.js';
import { conflict, notFound, parseInput } from './validate.js';

type Params = { Params: { realm: string; name: string } };

export const ScopePathSchema = z.object({ name: z.string().max(128).regex(SCOPE_TOKEN, 'must be a scope-token (RFC 6749 §3.3)') });
const text = z.string().max(1000);
/** `description` per language (CONTRACT.md §16): the consent page shows the person's, else `description`. */
export const DescriptionsSchema = z
  .strictObject({ en: text.optional(), de: text.optional(), fr: text.optional() })
  .describe('The description in English, German and French; the consent page shows the person\'s language, else `description`');
export const ScopePutSchema = z.strictObject({ description: text, descriptions: DescriptionsSchema.optional(), claims: ScopeClaimsSchema.optional() });
const BUILTIN = new Set(BUILTIN_SCOPES.map((scope) => scope.name));

/** A scope as the admin API shows it: `claims` only when it maps some (CONTRACT.md §10). */
export function scopeView(scope: Scope) {
  return {
    name: scope.name,
    description: scope.description,
    ...(Object.keys(scope.descriptions).length === 0 ? {} : { descriptions: { ...scope.descriptions } }),
    ...(scope.claims.length === 0 ? {} : { claims: scope.claims.map(({ name, source, tokens }) => ({ name, source, tokens: [...tokens] })) }),
  };
}

/**
 * `/admin/realms/{realm}/scopes`: what clients may request, with the text the consent page
 * shows, and the claims about the person that its tokens carry. A PUT without `claims` keeps
 * the ones stored.
 */
export function scopeRoutes({ store }: AdminDeps): FastifyPluginAsync {
  return async (app) => {
    app.get<Params>('/scopes', async (request) => (await store.scopes.list(request.params.realm)).map(scopeView));

    app.get<Params>('/scopes/:name', async (request) => {
      const scope = await store.scopes.get(request.params.realm, request.params.name);
      if (!scope) throw notFound('scope');
      return scopeView(scope);
    });

    app.put<Params>('/scopes/:name', async (request, reply) => {
      const { name } = parseInput(ScopePathSchema, { name: request.params.name });
      const { description, descriptions, claims } = parseInput(ScopePutSchema, request.body);
      const { scope, created } = await store.scopes.put(request.params.realm, name, description, claims, descriptions);
      return reply.code(created ? 201 : 200).send(scopeView(scope));
    });

    app.delete<Params>('/scopes/:name', async (request, reply) => {
      const { realm, name } = request.params;
      if (BUILTIN.has(name)) throw conflict(`${name} exists in every realm and cannot be deleted`);
      const clientIds = await store.clients.usingScope(realm, name);
      if (clientIds.length > 0) throw conflict(`the scope is used by clients: ${clientIds.join(', ')}`);
      const resources = await store.resources.listingScope(realm, name);
      if (resources.length > 0) throw conflict(`the scope is listed by resources: ${resources.slice(0, 5).join(', ')}`);
      if (!(await store.scopes.delete(realm, name))) throw notFound('scope');
      return reply.code(204).send();
    });
  };
}
