import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { type ServerOptions as HttpsServerOptions, createServer as createHttpsServer } from 'node:https';
import type { FastifyInstance } from 'fastify';

/** What only the admin port serves when there is one: the admin API and console, and the metrics. */
export function isAdminPath(path: string): boolean {
  return path === '/admin' || path.startsWith('/admin/') || path === '/metrics';
}

/** Served on both ports: the load balancer and the orchestrator may probe either. */
const EITHER_PORT = new Set(['/healthz', '/readyz']);

/**
 * The request's path as a router or a proxy may read it: percent-decoded, dot segments resolved,
 * runs of slashes made one. `/%61dmin/realms`, `//admin` and `/x/../metrics` are what they look like.
 */
function normalisedPath(url: string): string {
  let path = url.split(/[?#]/, 1)[0]!;
  try {
    path = decodeURIComponent(path);
  } catch {
    // Malformed percent-encoding: no route matches it either; judged as sent.
  }
  return new URL(path.replace(/\/+/g, '/'), 'http://path.invalid').pathname.replace(/\/+/g, '/');
}

/**
 * `ADMIN_PORT` (CONTRACT.md §1): a second listener of the same application, which alone serves
 * `/admin` and `/metrics`; the public listener answers 404 there, as for any unknown path, and
 * the admin listener answers 404 for the public endpoints. Both serve /healthz and /readyz.
 *
 * The admin listener hands its requests to the application's own server (its `request` event),
 * so that one application, one store, one set of metrics and one graceful stop (src/http/health.ts
 * Drain) serve both ports; which listener a request came through is all that differs. It speaks
 * HTTPS with the public listener's TLS options when TLS_CERT is set, and takes TRUST_PROXY alike.
 */
export class AdminPort {
  private readonly arrived = new WeakSet<IncomingMessage>();
  private app: FastifyInstance | undefined;
  readonly server: Server;

  constructor(https?: HttpsServerOptions) {
    const forward = (request: IncomingMessage, response: ServerResponse) => {
      this.arrived.add(request);
      if (!this.app) {
        response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' }).end('{"error":"temporarily_unavailable","error_description":"the server is starting"}');
        return;
      }
      this.app.server.emit('request', request, response);
    };
    this.server = https ? createHttpsServer(https, forward) : createServer(forward);
  }

  /**
   * Sends each request to the listener that serves it (an onRequest hook, before any other
   * work, the admin token's check included), and gives the admin listener the application's
   * timeouts and the handler of malformed requests.
   */
  attach(app: FastifyInstance): void {
    this.app = app;
    app.addHook('onRequest', (request, reply, done) => {
      // A path no route serves is answered 404 by the not-found handler already.
      if (request.is404) return done();
      // Judged by the route the router matched (it percent-decodes the path: `/%61dmin` is /admin),
      // and by the path once decoded, so that no spelling of /admin or /metrics reaches the public port.
      const route = request.routeOptions.url ?? '';
      if (EITHER_PORT.has(route)) return done();
      const adminOnly = isAdminPath(route) || isAdminPath(normalisedPath(request.url));
      if (this.arrived.has(request.raw) === adminOnly) return done();
      reply.callNotFound();
    });
    app.addHook('onReady', (ready) => {
      const { server } = app;
      this.server.keepAliveTimeout = server.keepAliveTimeout;
      this.server.requestTimeout = server.requestTimeout;
      this.server.headersTimeout = server.headersTimeout;
      this.server.timeout = server.timeout;
      this.server.maxRequestsPerSocket = server.maxRequestsPerSocket;
      ready();
    });
    this.server.on('clientError', (error, socket) => app.server.emit('clientError', error, socket));
  }

  listen(port: number, host: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
  }

  /** Stops accepting, lets the requests in flight finish, closes idle kept-alive connections (as Fastify's close does). */
  close(): Promise<void> {
    if (!this.server.listening) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.server.close((error) => (error ? reject(error) : resolve()));
      this.server.closeIdleConnections();
    });
  }
}
