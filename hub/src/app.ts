import { presenceRoutes } from './routes/presence.routes.js';
import { agentUpdatesRoutes } from './routes/agent-updates.routes.js';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { HubServices } from './http/services.js';
import { changesState, csrfRefused, fromOwnOrigin, tokenFromHeader } from './http/auth.js';
import { coerceBySchema, dropCreateLockVersion } from './http/coerce.js';
import { isFormBody, registerBodyParsers } from './http/content.js';
import { registerErrorHandler } from './http/error-handler.js';
import type { FailureWindowsFactory } from './throttling/failure-windows.js';
import {
  AuthThrottle,
  type AuthThrottleSettings,
  defaultAuthThrottle,
  throttleUnauthorized,
} from './http/auth-throttle.js';
import { docsContentSecurityPolicy, registerSecurityHeaders } from './http/security-headers.js';
import { registerDocsPage } from './http/docs-page.js';
import { collectOpenApi } from './http/openapi-source.js';
import {
  defaultHttpLimits,
  type HttpLimits,
  lazyRequestLogger,
  serverOptions,
} from './http/server-options.js';
import { registerObservability } from './observability/observability.routes.js';
import { unauthorized } from './errors.js';
import { accountsRoutes } from './routes/accounts.routes.js';
import { apiKeysRoutes } from './routes/api-keys.routes.js';
import { membersRoutes } from './routes/members.routes.js';
import { resourceLogsRoutes } from './routes/resource-logs.routes.js';
import { resourceTypesRoutes } from './routes/resource-types.routes.js';
import { resourcesRoutes } from './routes/resources.routes.js';
import { switchOnRoutes } from './routes/switch-on.routes.js';
import { liveRoutes } from './routes/live.routes.js';
import { memberCreditsRoutes } from './routes/member-credits.routes.js';
import { memberChangesRoutes } from './routes/member-changes.routes.js';
import { memberDeviceRoutes } from './routes/member-device.routes.js';
import { memberPaymentsRoutes } from './routes/member-payments.routes.js';
import { LiveChannel } from './http/live.js';
import { serveWebApp } from './http/web-app.js';
import { webhooksRoutes } from './routes/webhooks.routes.js';
import { bookingsRoutes } from './routes/bookings.routes.js';
import { spacesRoutes } from './routes/spaces.routes.js';
import { trainingRoutes } from './routes/training.routes.js';
import { chargesRoutes } from './routes/charges.routes.js';
import { invoicesRoutes } from './routes/invoices.routes.js';
import { sepaRoutes } from './routes/sepa.routes.js';
import { jobsRoutes } from './routes/jobs.routes.js';
import { keysRoutes } from './routes/keys.routes.js';
import { bridgeApiRoutes } from './routes/bridge-api.routes.js';
import { packagesRoutes } from './routes/packages.routes.js';
import { paymentsRoutes } from './routes/payments.routes.js';
import type { PaymentProvider } from './billing/payments.js';
import { invitationsRoutes } from './routes/invitations.routes.js';
import { signInRoutes } from './routes/sign-in.routes.js';
import { adminConsoleRoutes } from './routes/admin-console.routes.js';
import { billingTotalsRoutes } from './routes/billing-totals.routes.js';
import { reportsRoutes } from './routes/reports.routes.js';
import { accessSimulationsRoutes } from './routes/access-simulations.routes.js';
import { shadowRoutes } from './routes/shadow.routes.js';
import { webhookDeliveriesRoutes } from './routes/webhook-deliveries.routes.js';
import { userAccountsRoutes } from './routes/user-accounts.routes.js';
import { firstRunRoutes } from './routes/first-run.routes.js';
import { notificationsRoutes } from './routes/notifications.routes.js';
import { signUpsRoutes } from './routes/sign-ups.routes.js';
import { problemReportsRoutes } from './routes/problem-reports.routes.js';
import { resourceTypeMaintainersRoutes } from './routes/resource-type-maintainers.routes.js';
// Moving in: members from a spreadsheet.
import { memberImportRoutes } from './routes/member-import.routes.js';
import { clearSessionCookie, sessionCookie, setSessionCookie } from './sign-in/cookie.js';
import { decorateRouteOf, routeOf } from './http/request-route.js';

export const API_PREFIX = '/api/v1';
const apiDescription = [
  'Members, resources and their bridges, spaces, bookings, packages, billing and webhooks of a makerspace; the same paths, fields and conventions as the Fabman API.',
  'Authenticate with an API key token as `Authorization: Bearer <token>` (or as the username of Basic auth), or with the browser session of the web app. Lists take `limit` and `offset` and answer `X-Total-Count` and a `Link` header.',
  'Every error answers `{statusCode, error, message, data?}` (the Error schema). Besides the answers each operation lists, any call may answer 500 on a fault of the hub, or 503 with `Retry-After` while the database is unavailable.',
  'This document, as OpenAPI 3.1: `/api/v1/openapi.json`.',
].join('\n\n');
const publicPrefixes = [`${API_PREFIX}/docs`, `${API_PREFIX}/openapi.json`];

export interface BuildOptions {
  /** Extra route plugins (under /api/v1) that other areas contribute. */
  routes?: ((ctx: HubServices) => any)[];
  /** How payment requests ask members to pay (bank transfer instructions by default). */
  paymentProvider?: PaymentProvider;
  /** The built web app to serve at `/` (web/dist by default). */
  webDir?: string;
  /** Body limit and timeouts (defaults: http/server-options.ts). */
  limits?: Partial<HttpLimits>;
  /** Failed-authentication throttling per source address (defaults: http/auth-throttle.ts). */
  authThrottle?: Partial<AuthThrottleSettings>;
  /** Reverse proxies whose X-Forwarded-* headers count (HUB_TRUST_PROXY); none by default. */
  trustProxy?: string[];
  /** Cluster mode: failure counters in Redis, shared by every hub (default: this process's memory). */
  failureWindows?: FailureWindowsFactory;
}

/** Builds the HTTP app; never listens (main.ts does, tests use inject or listen on port 0). */
export async function buildApp(ctx: HubServices, options: BuildOptions = {}): Promise<FastifyInstance> {
  const limits = { ...defaultHttpLimits, ...options.limits };
  const app = Fastify({
    loggerInstance: ctx.logger as any,
    // One line per request would dominate the log of a busy hub; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: lazyRequestLogger,
    ...serverOptions(limits),
    // Forwarded headers count only from the proxies the operator named: anyone else could
    // otherwise choose the host of our Link headers and calendar URLs.
    trustProxy: options.trustProxy?.length ? options.trustProxy : false,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
    // zod validates; response schemas document the API, and records are built by hand, so plain
    // JSON is enough. Given here, Fastify never loads its own compilers (Ajv and
    // fast-json-stringify, which no route would use).
    schemaController: {
      compilersFactory: {
        // (Their types speak of Ajv's compile functions; Fastify calls each with a route's schema.)
        buildValidator: (() => validatorCompiler) as never,
        buildSerializer: (() => () => (data: unknown) => JSON.stringify(data)) as never,
      },
    },
  }).withTypeProvider<ZodTypeProvider>();

  app.decorateRequest('caller', null);
  app.decorateRequest('browserSession', null);
  decorateRouteOf(app);
  registerBodyParsers(app, limits.bodyLimit);
  // Wrong tokens and bridge keys are counted per source address (http/auth-throttle.ts): a 401
  // to a request with credentials may become a 429.
  const authThrottle = new AuthThrottle(
    ctx.clock,
    { ...defaultAuthThrottle, ...options.authThrottle },
    options.failureWindows,
  );
  registerErrorHandler(app, { onUnauthorized: throttleUnauthorized(authThrottle) });
  // Security headers and no-store on API answers (http/security-headers.ts); the live channel's
  // streams write the raw response.
  const liveUrl = `${API_PREFIX}/live`;
  await registerSecurityHeaders(app, API_PREFIX, [liveUrl]);

  // Either an API token (Bearer or Basic) or the browser session cookie (docs/SIGN-IN.md).
  const authenticate = async (request: FastifyRequest, reply: FastifyReply, token: string | null) => {
    if (token) {
      const caller = await ctx.auth.authenticate(token);
      if (!caller) throw unauthorized('Invalid API token');
      request.caller = caller;
      return;
    }
    const sessionToken = sessionCookie(request);
    if (!sessionToken) throw unauthorized();
    const found = await ctx.sessions.authenticate(sessionToken);
    if (!found) {
      clearSessionCookie(request, reply);
      throw unauthorized('Your session has ended; sign in again');
    }
    // A browser sends the cookie with requests other sites make it send: a change needs proof
    // that this hub's own page made it (its Origin and the session's CSRF token).
    if (
      changesState(request.method) &&
      !(
        fromOwnOrigin(request, ctx.publicUrl) &&
        ctx.sessions.csrfTokenMatches(found.session, request.headers['x-csrf-token'] as string | undefined)
      )
    ) {
      throw csrfRefused();
    }
    request.caller = found.caller;
    request.browserSession = found.session;
    // The expiry slid on: send the cookie again so the browser keeps it as long.
    if (found.refreshed) setSessionCookie(request, reply, sessionToken);
  };
  const apiPath = `${API_PREFIX}/`;
  app.addHook('onRequest', (request, reply, done) => {
    const url = request.url;
    if (
      request.is404 ||
      !url.startsWith(apiPath) ||
      publicPrefixes.some((p) => url.startsWith(p)) ||
      routeOf(request).config?.public
    )
      return done();
    const token = tokenFromHeader(request.headers.authorization);
    // A token the cache knows answers at once (no promise turns on the hot paths).
    const known = token ? ctx.auth.cached(token) : undefined;
    if (known) {
      request.caller = known;
      return done();
    }
    if (known === null) return done(unauthorized('Invalid API token'));
    authenticate(request, reply, token).then(() => done(), done);
  });

  // Query strings, path parameters and form bodies arrive as strings: one layer gives them the
  // types the route's schema wants, or answers 400 naming the field (http/coerce.ts).
  const coerce = (request: FastifyRequest) => {
    const schema = routeOf(request).schema;
    if (!schema) return;
    if (schema.params && request.params) {
      (request as any).params = coerceBySchema(schema.params, request.params, 'params');
    }
    if (schema.querystring && request.query) {
      (request as any).query = coerceBySchema(schema.querystring, request.query, 'query');
    }
    if (schema.body && isFormBody(request)) {
      request.body = coerceBySchema(schema.body, request.body, 'form');
    }
    if (schema.body && request.method === 'POST')
      request.body = dropCreateLockVersion(schema.body, request.body);
  };
  app.addHook('preValidation', (request, _reply, done) => {
    try {
      coerce(request);
    } catch (error) {
      return done(error as Error);
    }
    done();
  });

  // The API's document is built on its first request (http/openapi-source.ts).
  const openApi = collectOpenApi(app, {
    prefix: API_PREFIX,
    description: apiDescription,
    publicUrl: ctx.publicUrl,
  });
  // The docs page: swagger-ui is loaded on its first visit (http/docs-page.ts).
  registerDocsPage(app, `${API_PREFIX}/docs`, docsContentSecurityPolicy, openApi);
  registerObservability(app, ctx);

  // Streams end before the server closes (an open stream would hold app.close() forever).
  const live = new LiveChannel(ctx);
  app.decorate('live', live);
  app.addHook('preClose', async () => live.close());
  // Flushes of the streams give way to API requests in flight (a switch-on waits for at most one
  // slice of socket writes).
  app.addHook('onRequest', (request, reply, done) => {
    if (routeOf(request).url !== liveUrl) live.track(reply.raw);
    done();
  });
  // A revoked or signed-out session ends its streams at once (DESIGN 11).
  const stopHearing = ctx.sessions.onRevoked((ids) =>
    live.end(
      (caller) => caller.sessionId !== null && ids.includes(caller.sessionId),
      'Your sign-in has ended',
    ),
  );
  app.addHook('onClose', async () => stopHearing());

  await app.register(
    async (api) => {
      api.get('/openapi.json', { schema: { hide: true }, config: { public: true } }, () => openApi());
      await api.register(accountsRoutes(ctx));
      await api.register(membersRoutes(ctx));
      await api.register(apiKeysRoutes(ctx));
      await api.register(resourcesRoutes(ctx));
      await api.register(switchOnRoutes(ctx));
      await api.register(liveRoutes(ctx, live));
      await api.register(memberCreditsRoutes(ctx));
      await api.register(memberChangesRoutes(ctx));
      await api.register(memberDeviceRoutes(ctx));
      await api.register(memberPaymentsRoutes(ctx));
      await api.register(resourceTypesRoutes(ctx));
      await api.register(resourceLogsRoutes(ctx));
      await api.register(webhooksRoutes(ctx));
      await api.register(spacesRoutes(ctx));
      await api.register(bookingsRoutes(ctx));
      await api.register(trainingRoutes(ctx));
      await api.register(packagesRoutes(ctx));
      await api.register(chargesRoutes(ctx));
      await api.register(invoicesRoutes(ctx));
      await api.register(paymentsRoutes(ctx, options.paymentProvider));
      await api.register(sepaRoutes(ctx));
      await api.register(jobsRoutes(ctx));
      await api.register(keysRoutes(ctx));
      await api.register(bridgeApiRoutes(ctx));
      await api.register(signInRoutes(ctx));
      await api.register(invitationsRoutes(ctx));
      await api.register(adminConsoleRoutes(ctx));
      await api.register(billingTotalsRoutes(ctx));
      await api.register(reportsRoutes(ctx));
      await api.register(notificationsRoutes(ctx));
      await api.register(webhookDeliveriesRoutes(ctx));
      await api.register(userAccountsRoutes(ctx));
      await api.register(firstRunRoutes(ctx));
      await api.register(signUpsRoutes(ctx));
      await api.register(presenceRoutes(ctx));
      await api.register(problemReportsRoutes(ctx));
      await api.register(resourceTypeMaintainersRoutes(ctx));
      await api.register(agentUpdatesRoutes(ctx));
      await api.register(memberImportRoutes(ctx));
      await api.register(accessSimulationsRoutes(ctx));
      await api.register(shadowRoutes(ctx));
      for (const routes of options.routes ?? []) await api.register(routes(ctx));
    },
    { prefix: API_PREFIX },
  );
  await serveWebApp(app, options.webDir);

  return app;
}
