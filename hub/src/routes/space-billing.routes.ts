import { BillingSettingsRecord, BillingSettingsUpdate } from '@makerspace/shared';
import type { FastifyRequest } from 'fastify';
import { callerOf } from '../http/auth.js';
import { collection, updateIn } from '../http/collection.js';
import { lockedNote } from '../http/openapi-doc.js';
import { SpaceParams } from '../http/params.js';
import type { HubServices } from '../http/services.js';
import { adminOnly } from '../kernel/caller.js';
import {
  billingColumns,
  billingSettingsRecord,
  billingSettingsToChange,
  clearStripe,
  ensureBillingSettings,
  visibleBillingSettings,
} from '../spaces/spaces.repository.js';
import type { SpaceAccess } from './space-extras.routes.js';
import type { App } from '../http/route.js';
import { sealStripeSecrets } from '../billing/stripe.js';

const tags = ['spaces'];

/** A change of billing settings, for the docs of both paths that change them. */
const billingSettingsExample = {
  lockVersion: 2,
  currency: 'EUR',
  taxPercent: '20.00',
  invoiceNumberPrefix: 'MS-',
};

/** spec 4.9: a space's billing settings (one per space), changed by their id. */
export const billingSettings = collection({
  table: 'space_billing_settings',
  id: 'billingSettingsId',
  noun: 'Space billing settings',
  nouns: 'space billing settings',
  tag: 'spaces',
  record: BillingSettingsRecord,
  visible: visibleBillingSettings,
  toRecord: billingSettingsRecord,
  update: {
    body: BillingSettingsUpdate,
    // The Stripe secrets are sealed with the hub's key before they are stored.
    columns: (body, _row, { ctx }) => ({ ...billingColumns(body), ...sealStripeSecrets(ctx.tokens, body) }),
  },
  docs: {
    get: {
      summary: 'Get billing settings by their id',
      description: 'The same as GET /spaces/{spaceId}/billing-settings (404 for plain members).',
    },
    update: {
      summary: 'Change billing settings by their id',
      description: 'The same as PUT /spaces/{spaceId}/billing-settings.',
      example: billingSettingsExample,
    },
  },
});

/**
 * A space's billing settings by its path (spec 4.9), and the Stripe disconnect (also at the
 * spec's singular /space path).
 */
export function registerSpaceBilling(app: App, ctx: HubServices, access: SpaceAccess): void {
  const { spaceOf, spaceToManage } = access;
  const settingsOf = async (request: FastifyRequest, spaceId: number) =>
    ensureBillingSettings(ctx.db, await spaceOf(request, spaceId), ctx.clock.now().toISOString());

  app.get(
    '/spaces/:spaceId/billing-settings',
    {
      schema: {
        tags,
        summary: 'Get a space’s billing settings',
        description:
          'Currency, tax, invoice numbering and texts, payment providers. Admins only (403 for plain members, who read what their invoices print on the invoice); `GET /spaces?embed=billingSettings` leaves them out for plain members.',
        params: SpaceParams,
        response: { 200: BillingSettingsRecord },
      },
    },
    async (request) => {
      // Billing settings are the admins'; a member reads what their invoices print on the invoice.
      adminOnly(callerOf(request));
      return billingSettingsRecord(await settingsOf(request, request.params.spaceId));
    },
  );

  app.put(
    '/spaces/:spaceId/billing-settings',
    {
      schema: {
        tags,
        summary: 'Change a space’s billing settings',
        description: lockedNote,
        admins: true,
        example: billingSettingsExample,
        params: SpaceParams,
        body: BillingSettingsUpdate,
        response: { 200: BillingSettingsRecord },
      },
    },
    async (request) => {
      // 404, then 403, then 409 before the settings are made: a refused change writes nothing.
      const space = await spaceOf(request, request.params.spaceId);
      adminOnly(callerOf(request));
      const at = ctx.clock.now().toISOString();
      const settings = await billingSettingsToChange(ctx.db, space, request.body.lockVersion, at);
      return updateIn(billingSettings, ctx, request, {}, settings.id, request.body);
    },
  );

  // The spec's singular /space path beside Fabman's plural one.
  const stripe =
    'Clears the Stripe fields of the billing settings, the secret key and webhook secret too: members can no longer pay online. Answers 204.';
  for (const prefix of ['/space', '/spaces']) {
    app.delete(
      `${prefix}/:spaceId/billing-settings/stripe`,
      {
        schema: {
          tags,
          summary: 'Disconnect Stripe from a space',
          description:
            prefix === '/space' ? `${stripe} Also at /spaces/:spaceId/billing-settings/stripe.` : stripe,
          admins: true,
          params: SpaceParams,
        },
      },
      async (request, reply) => {
        const { space, stamp } = await spaceToManage(request, request.params.spaceId);
        const settings = await ensureBillingSettings(ctx.db, space, stamp.at);
        await clearStripe(ctx.db, settings.id, stamp);
        return reply.code(204).send();
      },
    );
  }
}
