import type { FastifyInstance, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** `routeOptions` as first read (routeOf). */
    routeRead: FastifyRequest['routeOptions'] | null;
  }
}

/**
 * The route options of a request, read once: Fastify builds and freezes a new object at every
 * `request.routeOptions`, and the hooks of one request ask for it several times.
 */
export function routeOf(request: FastifyRequest): FastifyRequest['routeOptions'] {
  if (request.routeRead === null) request.routeRead = request.routeOptions;
  return request.routeRead;
}

export function decorateRouteOf(app: FastifyInstance): void {
  app.decorateRequest('routeRead', null);
}
