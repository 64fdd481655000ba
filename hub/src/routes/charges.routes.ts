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
});

export function chargesRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => registerCollection(app, ctx, charges);
}
