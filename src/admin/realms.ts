import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { OAuthError } from '../errors.js';
import { ROOT_REALM, issuerOf, realmNameProblem } from '../records/realm-names.js';
import { MAIL_FEATURES, type RealmSettingsPatch, RealmSettingsPatchSchema, resolveSettings } from '../records/realm-settings.js';
import type { Realm } from '../store/realms.js';
import { generateRealmKeys } from '../tokens/signing-keys.js';
import { maySeeRealm } from './caller.js';
import type { AdminDeps } from './deps.js';
import { checkAcrJourneys } from './journey-references.js';
import { conflict, notFound, parseInput } from './validate.js';

export const RealmCreateSchema = z.strictObject({
  name: z.string().superRefine((name, ctx) => {
    const problem = realmNameProblem(name);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
  settings: RealmSettingsPatchSchema.optional(),
});
export const RealmPatchSchema = z.strictObject({ settings: RealmSettingsPatchSchema });

export function realmView(realm: Realm, baseUrl: string) {
  return {
    name: realm.name,
    issuer: issuerOf(baseUrl, realm.name),
    settings: realm.settings,
    created_at: realm.createdAt.toISOString(),
  };
}

/** Without `SMTP_URL`, a feature that sends mail cannot be turned on (CONTRACT.md §9). */
export function checkMailFeatures(settings: RealmSettingsPatch | undefined, mailer: AdminDeps['mailer']): void {
  if (mailer) return;
  const needingMail = MAIL_FEATURES.filter((name) => settings?.[name] === true);
  if (needingMail.length > 0) {
    throw new OAuthError('invalid_request', `${needingMail.map((name) => `settings.${name}`).join(', ')}: needs outgoing mail: set SMTP_URL`);
  }
}

/** `/admin/realms`: list, create (with its keys and built-in scopes), read, merge settings, delete. */
export function realmRoutes({ store, encryption, baseUrl, mailer, keyPairs }: AdminDeps): FastifyPluginAsync {
  return async (app) => {
    app.get('/realms', async (request) =>
      (await store.realms.list()).filter((realm) => maySeeRealm(request.adminPrincipal, realm.name)).map((realm) => realmView(realm, baseUrl)),
    );

    app.post('/realms', async (request, reply) => {
      const input = parseInput(RealmCreateSchema, request.body);
      checkMailFeatures(input.settings, mailer);
      if (await store.realms.get(input.name)) throw conflict('a realm with this name exists');
      checkAcrJourneys({ journeys: {}, settings: resolveSettings(input.settings ?? {}) }, input.settings?.acr_journeys);
      const keys = await generateRealmKeys(input.name, encryption, keyPairs);
      const realm = await store.realms.create(input.name, input.settings ?? {}, keys);
      if (!realm) throw conflict('a realm with this name exists');
      return reply.code(201).send(realmView(realm, baseUrl));
    });

    app.get<{ Params: { realm: string } }>('/realms/:realm', async (request) => {
      const realm = await store.realms.get(request.params.realm);
      if (!realm) throw notFound('realm');
      return realmView(realm, baseUrl);
    });

    app.patch<{ Params: { realm: string } }>('/realms/:realm', async (request) => {
      const input = parseInput(RealmPatchSchema, request.body);
      checkMailFeatures(input.settings, mailer);
      const current = await store.realms.get(request.params.realm);
      if (!current) throw notFound('realm');
      checkAcrJourneys(current, input.settings.acr_journeys);
      const realm = await store.realms.updateSettings(request.params.realm, input.settings);
      if (!realm) throw notFound('realm');
      return realmView(realm, baseUrl);
    });

    app.delete<{ Params: { realm: string } }>('/realms/:realm', async (request, reply) => {
      if (request.params.realm === ROOT_REALM) throw conflict('the root realm always exists and cannot be deleted');
      if (!(await store.realms.delete(request.params.realm))) throw notFound('realm');
      return reply.code(204).send();
    });
  };
}
