import type { FastifyInstance } from 'fastify';
import { OAuthError } from '../errors.js';
import { matchesHash } from '../tokens/secrets.js';

/** Every admin call carries `Authorization: Bearer <admin token>` (CONTRACT.md §5). */
export function requireAdminToken(app: FastifyInstance, tokenHash: Buffer): void {
  app.addHook('onRequest', async (request) => {
    const header = request.headers.authorization;
    const match = header ? /^Bearer ([\x21-\x7E]+)$/i.exec(header) : null;
    if (match?.[1] && matchesHash(match[1], tokenHash)) return;
    throw new OAuthError('invalid_token', header ? 'the admin token is not valid' : 'an admin token is required', {
      headers: { 'www-authenticate': header ? 'Bearer realm="admin", error="invalid_token"' : 'Bearer realm="admin"' },
    });
  });
}
