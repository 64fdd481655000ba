import {
  SepaBatchCreate,
  SepaBatchRecord,
  SepaCollectedCreate,
  SepaFileVersion,
  SepaReturnCreate,
} from '@makerspace/shared';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Db } from '../db/crud.js';
import { z } from 'zod';
import {
  createSepaBatch,
  discardSepaBatch,
  findSepaBatch,
  recordSepaCollected,
  recordSepaReturn,
  sepaBatchFile,
  sepaBatchRecords,
} from '../billing/sepa.js';
import { countSepaBatches, sepaBatchRows } from '../billing/sepa.repository.js';
import { requireAdmin } from '../http/auth.js';
import { MAX_LIMIT, sendPage } from '../http/list.js';
import { pagedNote } from '../http/openapi-doc.js';
import { pathId } from '../http/params.js';
import { fileReply } from '../http/file-reply.js';
import type { HubServices } from '../http/services.js';
import { adminCreatedRoute, adminNoContentRoute } from '../http/route-kinds.js';
import { accountOf, type Caller } from '../kernel/caller.js';

const tags = ['payments'];
const Params = z.object({ batchId: pathId });
const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_LIMIT).default(50).describe('Records per page (1-1000)'),
  offset: z.coerce.number().int().min(0).default(0).describe('Records to skip'),
});
const FileQuery = z.object({ version: SepaFileVersion.default('001.02') });

/**
 * SEPA direct debit batches, for admins (docs/PAYMENTS.md, "SEPA direct debit files"): make one from the open
 * invoices, download its pain.008 file for the bank, record returned debits and the collection.
 */
export function sepaRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    const recordOf = async (batch: Parameters<typeof sepaBatchRecords>[1][number]) =>
      (await sepaBatchRecords(ctx.db, [batch]))[0];
    // A recorded return or collection: one transaction, answered as the batch.
    const changeOf =
      <B>(
        change: (
          trx: Db,
          caller: Caller,
          batchId: number,
          body: B,
          now: Date,
          notifications: HubServices['notifications'],
        ) => Promise<Parameters<typeof recordOf>[0]>,
      ) =>
      async (request: FastifyRequest) => {
        const caller = requireAdmin(request);
        const { batchId } = request.params as { batchId: number };
        const batch = await ctx.events.transaction((trx) =>
          change(trx, caller, batchId, request.body as B, ctx.clock.now(), ctx.notifications),
        );
        return recordOf(batch);
      };

    adminCreatedRoute(
      app,
      'post',
      '/sepa-batches',
      {
        tags,
        summary: 'Make a SEPA direct debit batch',
        description:
          'Puts the open invoices of the caller’s space (or only the `invoices` named) whose members have a signed SEPA mandate (their payment method) into a batch, one debit per invoice for what is left to pay: FRST for a mandate’s first collection, RCUR after. The invoices are then in collection (`collection.state` on the invoice): in no other batch, not cancellable, and no payment is put on them unless it names them. Invoices that cannot be collected are listed in `skipped` with their reason (`noMandate`, `paidThroughStripe`, `mandateNotSigned`, `invalidIban`, `invalidBic`, `invalidMandateReference`, `notEuro`, `nothingToCollect`, `inCollection`). Download the file with GET /sepa-batches/{batchId}/xml. Needs SEPA enabled in the space’s billing settings with a valid creditor id, IBAN and account owner name (BIC optional).',
        errors: {
          422: 'The collection date is in the past, today or not a banking day (`data.collectionDate`: `past`, `tooSoon`, `notBankingDay`); a billing setting of the space is off, missing or not valid (`data.field` names it: `enableSepa`, `sepaCreditorId`, `sepaIban`, `sepaBic`, `sepaAccountOwnerName`); an invoice named is not an open invoice of the space (`data.invoices`); or no invoice can be collected (`data.noInvoices`, with `data.skipped`).',
        },
        example: { collectionDate: '2026-12-04' },
        body: SepaBatchCreate,
        response: { 201: SepaBatchRecord },
      },
      async (request, caller) => {
        const batch = await ctx.events.transaction((trx) =>
          createSepaBatch(trx, caller, request.body, ctx.clock.now()),
        );
        return recordOf(batch);
      },
    );

    app.get(
      '/sepa-batches',
      {
        schema: {
          tags,
          summary: 'List SEPA direct debit batches',
          description: `The account’s batches, newest first, each with its debits and skipped invoices. ${pagedNote}`,
          admins: true,
          querystring: ListQuery,
          response: { 200: z.array(SepaBatchRecord) },
        },
      },
      async (request, reply) => {
        const account = accountOf(requireAdmin(request));
        const { limit, offset } = request.query;
        const rows = await sepaBatchRows(ctx.db, account, { limit, offset });
        const total = await countSepaBatches(ctx.db, account);
        const records = await sepaBatchRecords(ctx.db, rows);
        return sendPage(request, reply, { limit, offset, total }, records, ctx.publicUrl);
      },
    );

    app.get(
      '/sepa-batches/:batchId',
      {
        schema: {
          tags,
          summary: 'Get a SEPA direct debit batch',
          description:
            'The batch with its debits (sequence type, mandate, amount, state, return reason) and the invoices it skipped, with why.',
          admins: true,
          params: Params,
          response: { 200: SepaBatchRecord },
        },
      },
      async (request) => recordOf(await findSepaBatch(ctx.db, requireAdmin(request), request.params.batchId)),
    );

    app.get(
      '/sepa-batches/:batchId/xml',
      {
        schema: {
          tags,
          summary: 'Download a batch’s pain.008 file',
          description:
            'The SEPA direct debit file (ISO 20022 pain.008, SEPA Core) to upload to the space’s bank, as an attachment named `sepa-batch-{id}-pain.008.{version}.xml`. `version` 001.02 (default, every bank) or 001.08 (the newer version, `BICFI` for BICs); both carry the same debits and message id, so a bank refuses the second upload of the same batch as a duplicate.',
          admins: true,
          params: Params,
          querystring: FileQuery,
          produces: ['application/xml'],
        },
      },
      async (request, reply) => {
        const batch = await findSepaBatch(ctx.db, requireAdmin(request), request.params.batchId);
        const { version } = request.query;
        const name = `sepa-batch-${batch.id}-pain.008.${version}.xml`;
        return fileReply(reply, { type: 'application/xml; charset=utf-8', name }).send(
          await sepaBatchFile(ctx.db, batch, version),
        );
      },
    );

    app.post(
      '/sepa-batches/:batchId/returns',
      {
        schema: {
          tags,
          summary: 'Record a returned debit',
          description:
            'The bank returned the debit of an invoice of the batch (a return, refund or rejection), with the SEPA reason code of its notice. The invoice is open again (`collection.state` reads `returned`, with the reason) and can go into a later batch; a payment recorded for it when the batch was collected is removed. The return stays on the batch. Answers the batch.',
          admins: true,
          errors: {
            409: 'The debit is already recorded as returned (`data.alreadyReturned`).',
            422: 'The invoice is not in this batch (`data.invoice`).',
          },
          example: {
            invoice: 118,
            reason: 'AM04',
            notes: 'Insufficient funds, asked the member to pay in cash',
          },
          params: Params,
          body: SepaReturnCreate,
          response: { 200: SepaBatchRecord },
        },
      },
      changeOf(recordSepaReturn),
    );

    app.post(
      '/sepa-batches/:batchId/collected',
      {
        schema: {
          tags,
          summary: 'Record a batch as collected',
          description:
            'The bank credited the batch to the space’s account. Each debit still in collection becomes a completed payment of its member (method `sepa`, dated `date`, default the collection date) that settles its invoice; debits recorded as returned stay open invoices. A debit returned later is still recorded with POST /sepa-batches/{batchId}/returns, which removes its payment. Answers the batch.',
          admins: true,
          errors: { 409: 'The batch is already recorded as collected (`data.alreadyCollected`).' },
          example: { date: '2026-12-04' },
          params: Params,
          body: SepaCollectedCreate,
          response: { 200: SepaBatchRecord },
        },
      },
      changeOf(recordSepaCollected),
    );

    adminNoContentRoute(
      app,
      'delete',
      '/sepa-batches/:batchId',
      {
        tags,
        summary: 'Discard a SEPA direct debit batch',
        description:
          'For a batch that was not sent to the bank after all: it goes, and its invoices leave collection (open again). Answers 204.',
        errors: {
          409: 'The batch was at the bank: it is recorded as collected or a debit of it as returned (`data.atBank`).',
        },
        params: Params,
      },
      (request, caller) =>
        ctx.events.transaction((trx) => discardSepaBatch(trx, caller, request.params.batchId)),
    );
  };
}
