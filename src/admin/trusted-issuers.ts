import type { FastifyPluginAsync } from 'fastify';
import {
  type TrustedIssuerRecord,
  TrustedIssuerCreateSchema,
  TrustedIssuerPatchSchema,
  trustedIssuerProblems,
} from '../records/trusted-issuer.js';
import { OAuthError } from '../errors.js';
import type { TrustedIssuer } from '../store/trusted-issuers.js';
import type { AdminDeps } from './deps.js';
import { conflict, notFound, parseInput } from './validate.js';

type Params = { Params: { realm: string; id: string } };

function view({ realm: _realm, createdAt, ...issuer }: TrustedIssuer) {
  return { ...issuer, created_at: Math.floor(createdAt.getTime() / 1000) };
}
export { view as trustedIssuerView };

function checked(record: TrustedIssuerRecord): TrustedIssuerRecord {
  const problems = trustedIssuerProblems(record);
  if (problems.length > 0) throw new OAuthError('invalid_request', problems.join('; '));
  return record;
}

const duplicate = () => conflict('the realm trusts this issuer for this kind of assertion already');

/**
 * `/admin/realms/{realm}/trusted-issuers` (CONTRACT.md §5): the identity systems whose JWTs
 * or SAML 2.0 assertions the realm accepts, for the assertion grants and token exchange.
 */
export function trustedIssuerRoutes({ store }: AdminDeps): FastifyPluginAsync {
  return async (app) => {
    app.get<Params>('/trusted-issuers', async (request) => (await store.trustedIssuers.list(request.params.realm)).map(view));

    app.post<Params>('/trusted-issuers', async (request, reply) => {
      const input = parseInput(TrustedIssuerCreateSchema, request.body);
      const record = checked({ ...input, subject_mapping: input.subject_mapping ?? 'username' });
      const created = await store.trustedIssuers.create(request.params.realm, record);
      if (!created) throw duplicate();
      return reply.code(201).send(view(created));
    });

    app.get<Params>('/trusted-issuers/:id', async (request) => {
      const issuer = await store.trustedIssuers.get(request.params.realm, request.params.id);
      if (!issuer) throw notFound('trusted issuer');
      return view(issuer);
    });

    app.patch<Params>('/trusted-issuers/:id', async (request) => {
      const { realm, id } = request.params;
      const patch = parseInput(TrustedIssuerPatchSchema, request.body);
      const current = await store.trustedIssuers.get(realm, id);
      if (!current) throw notFound('trusted issuer');
      const { id: _id, realm: _realm, createdAt: _createdAt, ...record } = current;
      const merged: Record<string, unknown> = { ...record };
      for (const [field, value] of Object.entries(patch)) {
        if (value === null) delete merged[field];
        else if (value !== undefined) merged[field] = value;
      }
      const updated = await store.trustedIssuers.update(realm, id, checked(merged as unknown as TrustedIssuerRecord));
      if (updated === 'conflict') throw duplicate();
      if (!updated) throw notFound('trusted issuer');
      return view(updated);
    });

    app.delete<Params>('/trusted-issuers/:id', async (request, reply) => {
      if (!(await store.trustedIssuers.delete(request.params.realm, request.params.id))) throw notFound('trusted issuer');
      return reply.code(204).send();
    });
  };
}
