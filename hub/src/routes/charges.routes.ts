import { ChargeCreate, ChargeRecord, ChargeUpdate } from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  chargeChanges,
  chargeRecord,
  createCharge,
  emitCharge,
  refuseChargeDelete,
  refuseInvoiced,
  visibleCharges,
} from '../billing/charges.js';
import { chargeFilterParams, filterCharges } from '../billing/list-filters.js';
import { collection, registerCollection } from '../http/collection.js';
import type { HubServices } from '../http/services.js';
import { billingList } from './billing-lists.js';
import { pagedNote } from '../http/openapi-doc.js';

/** spec: charges (usage, bookings, package fees and manual charges). */
export const charges = collection({
  table: 'charges',
  record: ChargeRecord,
  visible: visibleCharges,
  toRecord: chargeRecord,
  list: billingList(chargeFilterParams, filterCharges, 'dateTime'),
  create: {
    body: ChargeCreate,
    insert: (trx, { ctx, caller, body }) => createCharge(trx, caller, body, ctx.clock.now()),
  },
  // While the charge is on no invoice (409 once it is).
  update: {
    body: ChargeUpdate,
    columns: (body, row) => chargeChanges(row, body),
    written: async (trx, _before, after) => {
      refuseInvoiced(after); // an invoice run took it meanwhile: roll back
      await emitCharge(trx, 'charge_updated', after);
    },
  },
  remove: {
    before: (trx, row) => refuseChargeDelete(trx, row),
    after: (trx, row) => emitCharge(trx, 'charge_deleted', row),
  },
  docs: {
    list: {
      summary: 'List charges',
      description: `Usage, bookings, package fees and manual charges. Filters: \`member\`, \`invoice\`, \`uninvoiced\`, \`resourceLog\`, \`booking\`. Members see their own. ${pagedNote}`,
    },
    get: {
      summary: 'Get a charge',
      description: 'Members read their own charges.',
    },
    create: {
      summary: 'Charge a member',
      description: 'A manual charge; it goes on the member’s next invoice.',
      errors: {
        409: 'The booking or resource log is already charged.',
        422: 'The member, booking, resource log or member package does not exist for this member.',
      },
      example: { member: 42, description: 'Plywood 4 mm, 2 sheets', price: '12.80', taxPercent: '20' },
    },
    update: {
      summary: 'Change a charge',
      description: 'Only while the charge is on no invoice; sends `charge_updated`.',
      errors: { 409: 'The charge is on an invoice (`data.invoiced`: its id): cancel the invoice first.' },
      example: { lockVersion: 1, description: 'Plywood 4 mm, 3 sheets', price: '19.20' },
    },
    remove: {
      summary: 'Delete a charge',
      description: 'Only while the charge is on no invoice; sends `charge_deleted`.',
      errors: {
        409: 'The charge is on an invoice (`data.invoiced`), or is a package fee (`data.packageFee`: set its price to 0.00 to waive it).',
      },
    },
  },
});

export function chargesRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => registerCollection(app, ctx, charges);
}
