import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
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

/** A stopping instance closes its listener once no request came for this long… */
const DRAIN_QUIET_MS = 300;
/** …or after this long at most, if requests keep coming. */
const DRAIN_MAX_MS = 3_000;

/**
 * The first part of a graceful stop behind a load balancer (docs/operations.md "Stopping").
 * From `begin()` on, every new request but /healthz is answered 503 `temporarily_unavailable`
 * with `Connection: close` before anything of it is read or done: a balancer may pass it to
 * another instance, and one that polls /readyz (503 too) takes this one out. `settled()`
 * resolves once requests have stopped coming, or after DRAIN_MAX_MS if they do not: closing
 * the listener resets the connections still waiting in its accept backlog, whose requests are
 * unread but which a balancer cannot tell from a crash mid-request.
 */
export class Drain {
  private beganAt: number | undefined;
  private lastRefusedAt = 0;
  /** Requests refused with 503 while draining (/readyz excluded: probes do not keep a drain going). */
  refused = 0;
  /** Requests being served now, and those of them that were under way when the drain began. */
  private inFlight = 0;
  inFlightAtBegin = 0;
  /**
   * Requests whose headers were read once the drain had begun: they are refused. Those read
   * before are served, whenever their hooks run; only the few of a stopping instance are noted,
   * not every request (a WeakSet entry per request was 1 % of the token endpoint's busy time).
   */
  private readonly arrivedDuring = new WeakSet<IncomingMessage>();

  constructor(app: FastifyInstance) {
    // Prepended, so that it runs before Fastify's own listener starts the request's hooks.
    app.server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
      this.inFlight++;
      if (this.beganAt !== undefined) this.arrivedDuring.add(request);
      response.once('close', () => this.inFlight--);
    });
    // A callback hook, not an async one: every request passes it, and all but a stopping
    // instance's go straight on.
    app.addHook('onRequest', (request, reply, done) => {
      if (this.beganAt === undefined || !this.arrivedDuring.has(request.raw)) return done();
      const path = request.url.split('?', 1)[0]!;
      if (path === '/healthz') return done();
      reply.code(503).headers({ 'retry-after': '1', 'cache-control': 'no-store', connection: 'close' });
      if (path === '/readyz') return reply.send({ status: 'stopping' });
      this.refused++;
      this.lastRefusedAt = Date.now();
      return reply.send({ error: 'temporarily_unavailable', error_description: 'the server is stopping' });
    });
  }

  begin(): void {
    this.beganAt ??= Date.now();
    this.inFlightAtBegin = this.inFlight;
  }

  /** Resolves once no request was refused for DRAIN_QUIET_MS, or DRAIN_MAX_MS after the beginning. */
  async settled(): Promise<void> {
    const beganAt = this.beganAt ?? Date.now();
    for (;;) {
      const now = Date.now();
      const quietSince = Math.max(beganAt, this.lastRefusedAt);
      if (now - quietSince >= DRAIN_QUIET_MS || now - beganAt >= DRAIN_MAX_MS) return;
      await new Promise((resolve) => setTimeout(resolve, Math.min(DRAIN_QUIET_MS - (now - quietSince), 50)));
    }
  }
}
