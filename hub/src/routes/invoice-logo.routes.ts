import { BillingSettingsRecord } from '@makerspace/shared';
import { type ZodTypeProvider, validatorCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  checkInvoiceLogo,
  invoiceLogoOf,
  LOGO_MAX_BYTES,
  removeInvoiceLogo,
  storeInvoiceLogo,
} from '../billing/invoice-pdf.js';
import { notFound, HttpError } from '../errors.js';
import { SpaceParams } from '../http/params.js';
import type { App } from '../http/route.js';
import type { HubServices } from '../http/services.js';
import { billingSettingsRecord, ensureBillingSettings } from '../spaces/spaces.repository.js';
import type { SpaceAccess } from './space-extras.routes.js';

const tags = ['spaces'];
const imageTypes = ['image/png', 'image/jpeg', 'application/octet-stream'];

/**
 * The logo a space's invoices print (invoice PDFs, billing/invoice-pdf.ts), beside its billing
 * settings: uploaded as the image's bytes, read back, removed.
 */
export function registerInvoiceLogo(app: App, ctx: HubServices, access: SpaceAccess): void {
  const { spaceToManage } = access;

  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<ZodTypeProvider>();
    // The image's bytes as they came, up to a little over the limit so the answer can say how big
    // the logo was (beyond that Fastify answers 413).
    scope.addContentTypeParser(
      imageTypes,
      { parseAs: 'buffer', bodyLimit: 4 * LOGO_MAX_BYTES },
      (_r, body, done) => done(null, body),
    );

    scope.put(
      '/spaces/:spaceId/billing-settings/logo',
      {
        schema: {
          tags,
          summary: 'Upload the logo that invoices print',
          description: `The body is the image itself: a PNG or JPEG of at most ${LOGO_MAX_BYTES / 1024} KB, sent as \`image/png\` or \`image/jpeg\` (or \`application/octet-stream\`; the type is read from the bytes). It replaces the space’s logo; the billing settings read \`invoiceLogoType\` and count their \`lockVersion\` on. Invoices printed before keep the logo they were printed with. Answers the billing settings.`,
          admins: true,
          errors: {
            415: 'The body is not sent as `image/png`, `image/jpeg` or `application/octet-stream`.',
            422: 'The body is empty, larger than the limit (`data.logo: "tooLarge"`), not a PNG or JPEG (`"notAnImage"`), or an image that cannot be read (`"unreadable"`).',
          },
          errorExamples: {
            422: { message: 'The logo must be a PNG or JPEG image', data: { logo: 'notAnImage' } },
          },
          params: SpaceParams,
          consumes: ['image/png', 'image/jpeg', 'application/octet-stream'],
          // Documented as binary; the bytes are checked by checkInvoiceLogo, not by a schema.
          body: z.file(),
          response: { 200: BillingSettingsRecord },
        },
        validatorCompiler: (route) =>
          route.httpPart === 'body'
            ? (body: unknown) => ({ value: body })
            : validatorCompiler(route as never),
      },
      async (request) => {
        const { space, stamp } = await spaceToManage(request, request.params.spaceId);
        const bytes: unknown = request.body;
        if (!Buffer.isBuffer(bytes))
          throw new HttpError(415, 'Send the logo as the body, with content type image/png or image/jpeg');
        const contentType = await checkInvoiceLogo(bytes);
        const settings = await ensureBillingSettings(ctx.db, space, stamp.at);
        await ctx.events.transaction((trx) =>
          storeInvoiceLogo(trx, settings.id, { contentType, bytes }, stamp),
        );
        return billingSettingsRecord(await ensureBillingSettings(ctx.db, space, stamp.at));
      },
    );
  });

  app.get(
    '/spaces/:spaceId/billing-settings/logo',
    {
      schema: {
        tags,
        summary: 'Get the logo that invoices print',
        description: 'The image as uploaded (`image/png` or `image/jpeg`); 404 when the space has none.',
        admins: true,
        params: SpaceParams,
        produces: ['image/png', 'image/jpeg'],
      },
    },
    async (request, reply) => {
      const { space } = await spaceToManage(request, request.params.spaceId);
      const logo = await invoiceLogoOf(ctx.db, space.id);
      if (!logo) throw notFound('Invoice logo');
      reply.header('cache-control', 'private, no-cache');
      return reply.type(logo.contentType).send(Buffer.from(logo.bytes));
    },
  );

  app.delete(
    '/spaces/:spaceId/billing-settings/logo',
    {
      schema: {
        tags,
        summary: 'Remove the logo that invoices print',
        description:
          'Invoices printed from now on have no logo; those printed before keep theirs. Answers 204.',
        admins: true,
        params: SpaceParams,
      },
    },
    async (request, reply) => {
      const { space, stamp } = await spaceToManage(request, request.params.spaceId);
      const settings = await ensureBillingSettings(ctx.db, space, stamp.at);
      await ctx.events.transaction((trx) => removeInvoiceLogo(trx, settings.id, stamp));
      return reply.code(204).send();
    },
  );
}
