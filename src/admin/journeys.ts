import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { DEFAULT_JOURNEY, type Journey } from '../records/journey.js';
import { type RealmJourneys, journeyNamed } from '../authn/journeys/select.js';
import { InvalidJourney, isJourneyName, validateJourney } from '../authn/journeys/validate.js';
import { OAuthError } from '../errors.js';
import type { AdminDeps } from './deps.js';
import { referencesTo } from './journey-references.js';
import { conflict, notFound, parseInput } from './validate.js';

type Params = { Params: { realm: string; journey: string } };

export const JourneyPathSchema = z.object({
  journey: z.string().refine(isJourneyName, 'must be a journey name: 1 to 64 letters, digits, ".", "_" or "-"'),
});

/** A journey as an admin sent it, checked by the engine; its refusal names the node (CONTRACT.md §8). */
function journeyOf(body: unknown): Journey {
  try {
    return validateJourney(body);
  } catch (error) {
    if (error instanceof InvalidJourney) throw new OAuthError('invalid_request', error.message);
    throw error;
  }
}

/** `default` first (stored, or made from the `authentication` list), then the stored ones by name. */
function journeysOf(realm: RealmJourneys): Array<{ name: string; journey: Journey }> {
  const names = [DEFAULT_JOURNEY, ...Object.keys(realm.journeys).filter((name) => name !== DEFAULT_JOURNEY).sort()];
  return names.map((name) => ({ name, journey: journeyNamed(realm, name)! }));
}

/** `/admin/realms/{realm}/journeys` (CONTRACT.md §8): the graphs people walk to sign in. */
export function journeyRoutes({ store }: AdminDeps): FastifyPluginAsync {
  return async (app) => {
    app.get<Params>('/journeys', async (request) => ({ journeys: journeysOf(request.realm) }));

    app.get<Params>('/journeys/:journey', async (request) => {
      const journey = journeyNamed(request.realm, request.params.journey);
      if (!journey) throw notFound('journey');
      return journey;
    });

    app.put<Params>('/journeys/:journey', async (request, reply) => {
      const { journey: name } = parseInput(JourneyPathSchema, { journey: request.params.journey });
      const journey = journeyOf(request.body);
      const existed = journeyNamed(request.realm, name) !== undefined;
      const realm = await store.realms.putJourney(request.realm.name, name, journey);
      if (!realm) throw notFound('realm');
      return reply.code(existed ? 200 : 201).send(realm.journeys[name]);
    });

    app.delete<Params>('/journeys/:journey', async (request, reply) => {
      const name = request.params.journey;
      if (!Object.hasOwn(request.realm.journeys, name)) throw notFound('journey');
      const references = await referencesTo(store, request.realm, name);
      if (references) throw conflict(`${references}: change them first`);
      if (!(await store.realms.deleteJourney(request.realm.name, name))) throw notFound('journey');
      return reply.code(204).send();
    });
  };
}
