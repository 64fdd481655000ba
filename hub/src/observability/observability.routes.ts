import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { z } from 'zod';
import type { HubContext } from '../context.js';
import { notFound, unauthorized } from '../errors.js';
import { hashToken, safeEqual } from '../secrets.js';
import { routeOf } from '../http/request-route.js';

const Health = z.object({ ok: z.literal(true) });
const Ready = z.object({
  ok: z.boolean(),
  checks: z.object({
    database: z.enum(['ok', 'failing']),
    broker: z.enum(['ok', 'failing']),
  }),
});

export interface Readiness {
  ok: boolean;
  checks: { database: 'ok' | 'failing'; broker: 'ok' | 'failing' };
}

/** The database answers a query within 2 s and the broker accepts bridges (GET /ready, the watchdog). */
export async function checkReadiness(ctx: HubContext): Promise<Readiness> {
  const database = await Promise.race([
    sql`select 1 as one`.execute(ctx.db).then(
      () => 'ok' as const,
      () => 'failing' as const,
    ),
    new Promise<'failing'>((resolve) => setTimeout(() => resolve('failing'), 2000).unref()),
  ]);
  const broker = ctx.bridges.isRunning() ? ('ok' as const) : ('failing' as const);
  return { ok: database === 'ok' && broker === 'ok', checks: { database, broker } };
}

/**
 * Probes and metrics, outside /api/v1: GET /health (the process answers), GET /ready (the database
 * answers a query and the broker accepts bridges: 503 otherwise), GET /metrics (Prometheus text
 * format, only with the HUB_METRICS_TOKEN bearer token; 404 when none is configured).
 */
export function registerObservability(app: FastifyInstance, ctx: HubContext): void {
  // Counted by route pattern (bounded label values), never by the raw URL; only when something
  // may read the counts (without HUB_METRICS_TOKEN the metrics are no-ops: no hook at all).
  if (ctx.metricsTokenHash) {
    app.addHook('onResponse', (request, reply, done) => {
      const route = routeOf(request).url ?? 'unmatched';
      const method = request.method;
      ctx.metrics.httpRequests.inc({ method, route, status: String(reply.statusCode) });
      ctx.metrics.httpSeconds.observe({ method, route }, reply.elapsedTime / 1000);
      done();
    });
  }

  app.get(
    '/health',
    {
      schema: {
        tags: ['operations'],
        summary: 'Liveness: the hub process answers',
        description: 'Needs no credentials. For load balancers and systemd.',
        security: [],
        response: { 200: Health },
      },
    },
    async () => ({ ok: true as const }),
  );

  app.get(
    '/ready',
    {
      schema: {
        tags: ['operations'],
        summary: 'Readiness: the database answers and the MQTT broker accepts bridges (503 otherwise)',
        description: 'Needs no credentials. Answers 503 with the failing check otherwise.',
        security: [],
        response: { 200: Ready, 503: Ready },
      },
    },
    async (_request, reply) => {
      const readiness = await checkReadiness(ctx);
      return reply.code(readiness.ok ? 200 : 503).send(readiness);
    },
  );

  app.get(
    '/metrics',
    {
      schema: {
        tags: ['operations'],
        summary: 'Prometheus metrics (text format); Bearer HUB_METRICS_TOKEN',
        description: 'In Prometheus’ text format, with `Authorization: Bearer <HUB_METRICS_TOKEN>`.',
        security: [{ bearer: [] }],
      },
    },
    async (request, reply) => {
      const wanted = ctx.metricsTokenHash;
      if (!wanted) throw notFound();
      const given = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
      if (!safeEqual(hashToken(given), wanted)) throw unauthorized('Missing or invalid metrics token');
      return reply.type(ctx.metrics.contentType).send(await ctx.metrics.text());
    },
  );
}
