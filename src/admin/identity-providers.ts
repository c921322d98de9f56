import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import {
  ALIAS,
  IdentityProviderCreateSchema,
  IdentityProviderPatchSchema,
  patched,
  recordOf,
} from '../records/identity-provider.js';
import { sealClientSecret } from '../identity-providers/secret.js';
import { callbackUrl } from '../identity-providers/upstream-flow.js';
import { issuerOf } from '../records/realm-names.js';
import type { IdentityProvider } from '../store/identity-providers.js';
import type { AdminDeps } from './deps.js';
import { conflict, notFound, parseInput } from './validate.js';

type Params = { Params: { realm: string; alias: string } };

/** The alias in the path, as the OpenAPI document describes it. */
export const IdentityProviderPathSchema = z.strictObject({ alias: z.string().regex(ALIAS).describe('The provider\'s alias') });

/** A provider as the admin API shows it: never its secret; with the callback to register at the upstream. */
export function identityProviderView(provider: IdentityProvider, baseUrl: string) {
  return {
    alias: provider.alias,
    kind: provider.kind,
    issuer: provider.issuer,
    client_id: provider.client_id,
    scope: provider.scope,
    ...(provider.display_name === undefined ? {} : { display_name: provider.display_name }),
    username_claim: provider.username_claim,
    link_by_verified_email: provider.link_by_verified_email,
    redirect_uri: callbackUrl(issuerOf(baseUrl, provider.realm), provider.alias),
    created_at: provider.createdAt.toISOString(),
    updated_at: provider.updatedAt.toISOString(),
  };
}

/**
 * `/admin/realms/{realm}/identity-providers` (CONTRACT.md §10): the upstream OpenID providers
 * people of the realm sign in through. The client secret is write-only: encrypted under
 * MASTER_KEY as it comes in, and never in an answer.
 */
export function identityProviderRoutes({ store, encryption, baseUrl }: AdminDeps): FastifyPluginAsync {
  const view = (provider: IdentityProvider) => identityProviderView(provider, baseUrl);
  return async (app) => {
    app.get<Params>('/identity-providers', async (request) => (await store.identityProviders.list(request.params.realm)).map(view));

    app.post<Params>('/identity-providers', async (request, reply) => {
      const { realm } = request.params;
      const input = parseInput(IdentityProviderCreateSchema, request.body);
      const sealed = sealClientSecret(encryption, realm, input.alias, input.client_secret);
      const created = await store.identityProviders.create(realm, input.alias, recordOf(input), sealed);
      if (!created) throw conflict('the realm has an identity provider of this alias');
      return reply.code(201).send(view(created));
    });

    app.get<Params>('/identity-providers/:alias', async (request) => {
      const provider = await store.identityProviders.get(request.params.realm, request.params.alias);
      if (!provider) throw notFound('identity provider');
      return view(provider);
    });

    app.patch<Params>('/identity-providers/:alias', async (request) => {
      const { realm, alias } = request.params;
      const patch = parseInput(IdentityProviderPatchSchema, request.body);
      const current = await store.identityProviders.get(realm, alias);
      if (!current) throw notFound('identity provider');
      const sealed = patch.client_secret === undefined ? undefined : sealClientSecret(encryption, realm, alias, patch.client_secret);
      const updated = await store.identityProviders.update(realm, alias, patched(current, patch), sealed);
      if (!updated) throw notFound('identity provider');
      return view(updated);
    });

    app.delete<Params>('/identity-providers/:alias', async (request, reply) => {
      if (!(await store.identityProviders.delete(request.params.realm, request.params.alias))) throw notFound('identity provider');
      return reply.code(204).send();
    });
  };
}
