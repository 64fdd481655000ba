import { StickerQuery } from '@makerspace/shared';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { requireAdmin } from '../http/auth.js';
import { ResourceParams } from '../http/params.js';
import type { HubServices } from '../http/services.js';
import { findResource } from '../resources/resources.js';
import { onDisplay, stickerLanguage, stickerPng, stickerSvg, stickerUrl } from '../resources/sticker.js';

/** The printable QR sticker of a resource (spec 4.8), beside switch-on: it carries the switch-on code. */
export function registerStickerRoute(fastify: FastifyInstance, ctx: HubServices): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/resources/:resourceId/sticker',
    {
      schema: {
        tags: ['switch-on'],
        summary: 'The printable QR sticker of a resource (admins)',
        description:
          'An SVG (default) or a 300 dpi PNG (`format=png`) with the resource’s name and a QR code of `{HUB_PUBLIC_URL}/r/{id}?c={switch-on code}`, its words in English or German (`lang`, else Accept-Language). Changing the code makes printed stickers stale. Only admins see it, since it carries the code.',
        admins: true,
        params: ResourceParams,
        querystring: StickerQuery,
        produces: ['image/svg+xml', 'image/png'],
      },
    },
    async (request, reply) => {
      const caller = requireAdmin(request);
      const row = await findResource(ctx.db, caller, request.params.resourceId);
      const code = ctx.tokens.open(row.switchOnCodeEncrypted);
      const language = stickerLanguage(request.query.lang, request.headers['accept-language']);
      const input = {
        name: row.name,
        controlType: row.controlType,
        language,
        code: row.codeMode === 'totp' ? onDisplay(language) : code,
        url: row.codeMode === 'totp' ? `${ctx.linkBase}/r/${row.id}` : stickerUrl(ctx.linkBase, row.id, code),
      };
      // The code is a secret of the space: no cache may keep it.
      reply.header('cache-control', 'no-store');
      reply.header('content-disposition', `inline; filename="sticker-${row.id}.${request.query.format}"`);
      if (request.query.format === 'png') return reply.type('image/png').send(stickerPng(input));
      return reply.type('image/svg+xml; charset=utf-8').send(stickerSvg(input));
    },
  );
}
