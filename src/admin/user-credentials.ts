import type { FastifyPluginAsync } from 'fastify';
import type { Passkey } from '../store/passkeys.js';
import { actorOf } from './caller.js';
import type { AdminDeps } from './deps.js';
import { conflict, notFound } from './validate.js';

type Params = { Params: { realm: string; username: string } };
type PasskeyParams = { Params: { realm: string; username: string; passkey: string } };

/** A passkey as the admin API shows it: its credential id (base64url) and what the person named it, never its public key. */
export function passkeyView(passkey: Passkey) {
  return {
    id: passkey.credentialId.toString('base64url'),
    name: passkey.name,
    created_at: passkey.createdAt.toISOString(),
    last_used_at: passkey.lastUsedAt?.toISOString() ?? null,
    backed_up: passkey.backedUp,
  };
}

/** A credential id as a path names it: base64url, at most 1,023 bytes (WebAuthn L3 §5.8.3) once decoded. */
const credentialIdOf = (value: string): Buffer | undefined =>
  value.length <= 1364 && /^[A-Za-z0-9_-]+$/.test(value) ? Buffer.from(value, 'base64url') : undefined;

/**
 * A person's second factors as an operator manages them (CONTRACT.md §16): removing their TOTP
 * authenticator (and so its pending enrolment), listing and deleting their passkeys. A passkey
 * that is the person's only way to sign in (no password, no other passkey, no linked account)
 * stays: 409, as the account page refuses it (PasskeyStore.delete decides under the person's lock).
 */
export function userCredentialRoutes({ store, audit }: AdminDeps): FastifyPluginAsync {
  return async (app) => {
    app.delete<Params>('/users/:username/totp', async (request, reply) => {
      const user = await store.users.get(request.params.realm, request.params.username);
      if (!user) throw notFound('user');
      if (!(await store.oneTimeCodes.removeTotp(user.realm, user.id))) throw notFound('TOTP authenticator of the person');
      audit.record({ realm: user.realm, type: 'user.totp_removed', userId: user.id, address: request.ip, details: { username: user.username, actor: actorOf(request) } });
      return reply.code(204).send();
    });

    app.get<Params>('/users/:username/passkeys', async (request) => {
      const user = await store.users.get(request.params.realm, request.params.username);
      if (!user) throw notFound('user');
      return { passkeys: (await store.passkeys.listForUser(user.realm, user.id)).map(passkeyView) };
    });

    app.delete<PasskeyParams>('/users/:username/passkeys/:passkey', async (request, reply) => {
      const user = await store.users.get(request.params.realm, request.params.username);
      if (!user) throw notFound('user');
      const credentialId = credentialIdOf(request.params.passkey);
      const outcome = credentialId ? await store.passkeys.delete(user.realm, user.id, credentialId) : 'not_found';
      if (outcome === 'not_found') throw notFound('passkey of the person');
      if (outcome === 'only_way') throw conflict('the passkey is the person\'s only way to sign in: give them a password first');
      audit.record({
        realm: user.realm, type: 'user.passkey_deleted', userId: user.id, address: request.ip,
        details: { username: user.username, passkey: request.params.passkey, actor: actorOf(request) },
      });
      return reply.code(204).send();
    });
  };
}
