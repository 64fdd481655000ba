import type { FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import { adminOnly, type Caller } from '../kernel/caller.js';
import { callerOf } from './auth.js';
import type { App, memberRoute } from './route.js';

/**
 * Route declarations beside memberRoute and adminRoute (http/route.ts), with the same arguments:
 * routes that answer 201 or 204 instead of 200, and public routes.
 */

type Method = Parameters<typeof memberRoute>[1];
/** memberRoute's handler for a schema: the request typed by it and the caller, answering its body. */
type Handler<S extends FastifySchema> = Parameters<typeof memberRoute<S>>[4];
type Request<S extends FastifySchema> = Parameters<Handler<S>>[0];

/** Declares a route as memberRoute does, with its kind of handler. */
type Declare<Kind extends 'body' | 'none' | 'public'> = <S extends FastifySchema>(
  app: App,
  method: Method,
  url: string,
  schema: S,
  handler: Kind extends 'body'
    ? Handler<S>
    : Kind extends 'none'
      ? (request: Request<S>, caller: Caller) => Promise<void>
      : (request: Request<S>) => ReturnType<Handler<S>>,
) => void;

/**
 * The declaration of routes that answer another success than 200: the handler's answer goes out
 * with `status`, the caller checked as memberRoute and adminRoute do.
 */
function answering(status: 201 | 204, admins: boolean): Declare<'body' | 'none'> {
  return (app, method, url, schema, handler) => {
    const withStatus = async (request: FastifyRequest, reply: FastifyReply) => {
      const caller = callerOf(request);
      const answer = await handler(request as never, admins ? adminOnly(caller) : caller, reply);
      // A 204 has no body, whatever the handler's work returned.
      return status === 204 ? reply.code(204).send() : reply.code(status).send(answer);
    };
    app.route({
      method: method.toUpperCase() as 'GET',
      url,
      schema: admins ? { ...schema, admins: true } : schema,
      handler: withStatus as never,
    });
  };
}

/** A route members call that answers 201 Created with the record its handler returns. */
export const createdRoute: Declare<'body'> = answering(201, false);
/** A route only admins and owners call (`admins: true`) that answers 201 Created with its record. */
export const adminCreatedRoute: Declare<'body'> = answering(201, true);
/** A route members call that answers 204 No Content when its handler is done. */
export const noContentRoute: Declare<'none'> = answering(204, false);
/** A route only admins and owners call (`admins: true`) that answers 204 No Content when done. */
export const adminNoContentRoute: Declare<'none'> = answering(204, true);

/**
 * A route that needs no credentials (`config.public`; documented with no security): its handler
 * gets the request only, and answers 200.
 */
export const publicRoute: Declare<'public'> = (app, method, url, schema, handler) => {
  app.route({
    method: method.toUpperCase() as 'GET',
    url,
    config: { public: true },
    schema,
    handler: handler as never,
  });
};
