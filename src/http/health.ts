import type { FastifyPluginAsync } from 'fastify';
import type { Store } from '../store/index.js';

const READY_TIMEOUT_MS = 2000;

/** Liveness and readiness for the load balancer (CONTRACT.md §1). */
export function healthRoutes(store: Store): FastifyPluginAsync {
  return async (app) => {
    app.get('/healthz', async () => ({ status: 'ok' }));
    app.get('/readyz', async (_request, reply) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), READY_TIMEOUT_MS);
      });
      const ready = await Promise.race([store.ping(), timeout]).finally(() => clearTimeout(timer));
      reply.header('cache-control', 'no-store');
      return ready ? { status: 'ready' } : reply.code(503).send({ status: 'unavailable' });
    });
  };
}
