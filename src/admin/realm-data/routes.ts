import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { AdminDeps } from '../deps.js';
import { notFound, parseInput } from '../validate.js';
import { parseDocument } from './document.js';
import { exportRealm } from './export.js';
import { importRealm } from './import.js';

type Params = { Params: { realm: string } };

/** A realm's document may hold its people: far more than the admin API's other bodies. */
export const REALM_DOCUMENT_BODY_LIMIT = 32 * 1024 * 1024;

export const RealmExportQuerySchema = z.strictObject({
  users: z.enum(['true', 'false']).optional(),
});

export const RealmImportQuerySchema = z.strictObject({
  prune: z.enum(['true', 'false']).optional(),
});

/**
 * `GET /admin/realms/{realm}/export` and `PUT /admin/realms/{realm}/import` (CONTRACT.md §10):
 * a realm as one JSON document, and that document applied to a realm, which it creates when
 * there is none. Beside the realm routes, since an import's realm need not exist yet.
 */
export function realmDataRoutes(deps: AdminDeps): FastifyPluginAsync {
  return async (app) => {
    app.get<Params>('/realms/:realm/export', async (request, reply) => {
      const { users } = parseInput(RealmExportQuerySchema, request.query);
      const realm = await deps.store.realms.get(request.params.realm);
      if (!realm) throw notFound('realm');
      // With `users=true` it holds every password hash of the realm.
      return reply.header('cache-control', 'no-store').send(await exportRealm(deps.store, realm, users === 'true'));
    });

    app.put<Params>('/realms/:realm/import', { bodyLimit: REALM_DOCUMENT_BODY_LIMIT }, async (request, reply) => {
      const { prune } = parseInput(RealmImportQuerySchema, request.query);
      const document = parseDocument(request.body);
      const summary = await importRealm(deps, request.params.realm, document, { prune: prune === 'true' });
      return reply.code(summary.realm_created ? 201 : 200).send(summary);
    });
  };
}
