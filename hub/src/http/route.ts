import type {
  FastifyReply,
  FastifyRequest,
  FastifySchema,
  RouteGenericInterface,
  RouteHandlerMethod,
} from 'fastify';
import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import { adminOnly, type Caller } from '../kernel/caller.js';
import { callerOf } from './auth.js';

/** The routes' app, typed by their zod schemas. */
export type App = Parameters<FastifyPluginAsyncZod>[0];
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Request<S extends FastifySchema> = FastifyRequest<
  RouteGenericInterface,
  App['server'],
  FastifyRequest['raw'],
  S,
  ZodTypeProvider
>;
type Answer<S extends FastifySchema> = ReturnType<
  RouteHandlerMethod<
    App['server'],
    FastifyRequest['raw'],
    Parameters<RouteHandlerMethod>[1]['raw'],
    RouteGenericInterface,
    unknown,
    S,
    ZodTypeProvider
  >
>;
type Handler<S extends FastifySchema> = (
  request: Request<S>,
  caller: Caller,
  reply: FastifyReply,
) => Answer<S>;

/** Declares a route: its method, path, schema with its docs (openapi-doc.ts) and handler. */
type Declare = <S extends FastifySchema>(
  app: App,
  method: Method,
  url: string,
  schema: S,
  handler: Handler<S>,
) => void;

/** Declares a route that members call: the handler gets the caller beside the request (and the reply). */
export const memberRoute: Declare = (app, method, url, schema, handler) => {
  // The handler's types follow the schema (Declare); Fastify's overloads cannot see that
  // through a method chosen at run time.
  const withCaller = (request: FastifyRequest, reply: FastifyReply) =>
    handler(request as never, callerOf(request), reply);
  app.route({ method: method.toUpperCase() as 'GET', url, schema, handler: withCaller as never });
};

/**
 * Declares a route only the account's admins and owners may call: documented so
 * (`admins: true`), and a member's call answers 403 before the handler runs.
 */
export const adminRoute: Declare = (app, method, url, schema, handler) =>
  memberRoute(app, method, url, { ...schema, admins: true }, (request, caller, reply) =>
    handler(request as never, adminOnly(caller), reply),
  );
