import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { errorBody, HttpError } from './errors.js';

const contextNames: Record<string, string> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

/** One error handler: every error leaves as `{statusCode, error, message, data?}`. */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof HttpError) {
      if (err.headers) reply.headers(err.headers);
      return reply.code(err.statusCode).send(errorBody(err.statusCode, err.message, err.data));
    }
    if (hasZodFastifySchemaValidationErrors(err)) {
      const where = contextNames[err.validationContext ?? 'body'] ?? 'request';
      const issues = err.validation.map((v) => ({
        path: v.instancePath.replace(/^\//, '').replace(/\//g, '.'),
        message: v.message,
      }));
      const message = issues.map((i) => `${where}${i.path ? `.${i.path}` : ''}: ${i.message}`).join('; ');
      return reply.code(400).send(errorBody(400, message, { validation: issues }));
    }
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
        return reply
          .code(415)
          .send(
            errorBody(
              415,
              'Unsupported content type: send application/json or application/x-www-form-urlencoded',
            ),
          );
      }
      return reply.code(status).send(errorBody(status, err.message));
    }
    request.log.error({ err }, 'request failed');
    return reply.code(500).send(errorBody(500, 'An internal error occurred'));
  });
}
