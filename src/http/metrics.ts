import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  readonly registry: Registry;
  readonly tokensIssued: Counter<'grant_type'>;
  /** Sign-ins at the sign-in page: a rise of failures is worth an alert. */
  readonly signIns: Counter<'outcome'>;
  readonly requests: Counter<'method' | 'route' | 'status'>;
  readonly latency: Histogram<'method' | 'route'>;
}

/** The application's Prometheus metrics: requests and latencies per route, tokens issued per grant, sign-ins. */
export function newMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    requests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by route and status',
      labelNames: ['method', 'route', 'status'] as const,
      registers: [registry],
    }),
    latency: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by route',
      labelNames: ['method', 'route'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    tokensIssued: new Counter({
      name: 'tokens_issued_total',
      help: 'Token responses issued, by grant type',
      labelNames: ['grant_type'] as const,
      registers: [registry],
    }),
    signIns: new Counter({
      name: 'sign_ins_total',
      help: 'Sign-ins at the sign-in page, by outcome (success, failure)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
  };
}

/** Counts every request of the application, and serves the metrics at /metrics. */
export function metricsRoutes(metrics: Metrics): FastifyPluginAsync {
  return fp(
    async (app) => {
      // A callback hook, not an async one: every request passes it, and it awaits nothing.
      app.addHook('onResponse', (request, reply, done) => {
        // The route template, not the URL, keeps the label set bounded.
        const route = request.routeOptions.url ?? 'unmatched';
        metrics.requests.inc({ method: request.method, route, status: String(reply.statusCode) });
        metrics.latency.observe({ method: request.method, route }, reply.elapsedTime / 1000);
        done();
      });

      app.get('/metrics', async (_request, reply) => {
        reply.header('content-type', metrics.registry.contentType);
        return metrics.registry.metrics();
      });
    },
    { name: 'realmgate-metrics' },
  );
}
