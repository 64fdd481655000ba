import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { HubServices } from '../http/services.js';
import { loginRoutes } from './login.routes.js';
import { sessionsRoutes } from './sessions.routes.js';
import { signInLinksRoutes } from './sign-in-links.routes.js';

/** docs/SIGN-IN.md: passwords, emailed links, browser sessions (the /user routes). */
export function signInRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    await app.register(loginRoutes(ctx));
    await app.register(signInLinksRoutes(ctx));
    await app.register(sessionsRoutes(ctx));
  };
}
