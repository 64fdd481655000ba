import {
  BalanceItems,
  MandatePreview,
  PaymentAccountRecord,
  PaymentAccountUpdate,
  PaymentMethodRecord,
  PaymentMethodUpdate,
} from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { memberBalanceItems } from '../billing/balance.js';
import {
  mandatePreview,
  type PaymentPart,
  paymentPart,
  writePaymentPart,
} from '../billing/payment-details.js';
import { callerOf } from '../http/auth.js';
import type { HubServices } from '../http/services.js';
import { unwrittenRecord } from '../http/unwritten.js';
import { adminOnly } from '../kernel/caller.js';
import { findMember } from '../identity/members.js';
import { MemberParams } from '../http/params.js';
import type { OperationDoc } from '../http/openapi-doc.js';

/**
 * A member's money: balance items, payment account (admins write), payment method (the member
 * or an admin writes), and the SEPA mandate preview. Members see their own (404 for others').
 */
export function memberPaymentsRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/members/:memberId/balance-items',
      {
        schema: {
          tags: ['members'],
          summary: 'A member’s balance items',
          description:
            'The sums of the member’s invoices (not cancelled), completed payments, uninvoiced charges (`sumCharges`) and uninvoiced booking charges (`sumUnpaidBookings`), the prepaid `balance`, and the open `items` behind them (uninvoiced charges, unpaid invoices, payments), newest first; an item’s `amount` is what it adds to the balance.',
          params: MemberParams,
          response: { 200: BalanceItems },
        },
      },
      async (request) => {
        const member = await findMember(ctx.db, callerOf(request), request.params.memberId);
        return memberBalanceItems(ctx.db, member.id);
      },
    );

    const part = (
      path: string,
      name: PaymentPart,
      [record, body]: [z.ZodObject, z.ZodType],
      admins: boolean,
      docs: { read: OperationDoc; write: OperationDoc },
    ) => {
      const unwritten = unwrittenRecord(record);
      app.get(
        `/members/:memberId/${path}`,
        {
          schema: {
            tags: ['members'],
            ...docs.read,
            params: MemberParams,
            response: { 200: unwritten.schema },
          },
        },
        async (request) => {
          const member = await findMember(ctx.db, callerOf(request), request.params.memberId);
          return (await paymentPart(ctx.db, member.id, name)) ?? unwritten.of(member.id);
        },
      );
      app.put(
        `/members/:memberId/${path}`,
        {
          schema: {
            tags: ['members'],
            ...docs.write,
            params: MemberParams,
            body,
            response: { 200: record as z.ZodType },
          },
        },
        async (request) => {
          const caller = callerOf(request);
          const member = await findMember(ctx.db, caller, request.params.memberId);
          if (admins) adminOnly(caller);
          const at = ctx.clock.now().toISOString();
          return ctx.events.transaction((trx) =>
            writePaymentPart(trx, member, name, request.body as Record<string, unknown>, {
              at,
              by: caller.memberId,
            }),
          );
        },
      );
    };
    part('payment-account', 'paymentAccount', [PaymentAccountRecord, PaymentAccountUpdate], true, {
      read: {
        summary: 'Get a member’s payment account',
        description:
          'Who pays and at which provider; while none was written, an object whose fields are null but `member` (as Fabman answers).',
      },
      write: {
        summary: 'Set a member’s payment account',
        description: 'Fields left out keep their value.',
        admins: true,
        example: { provider: 'sepa', customerReference: 'C-0042', emailAddress: 'ada@example.org' },
      },
    });
    part('payment-method', 'paymentMethod', [PaymentMethodRecord, PaymentMethodUpdate], false, {
      read: {
        summary: 'Get a member’s payment method',
        description:
          'How the member pays (SEPA direct debit, card, ...); while none was written, an object whose fields are null but `member` (as Fabman answers).',
      },
      write: {
        summary: 'Set a member’s payment method',
        description:
          'The member (or an admin) sets it; it replaces the one before whole. IBANs are stored without spaces, upper case.',
        example: {
          type: 'sepa',
          iban: 'AT61 1904 3002 3457 3201',
          accountOwnerName: 'Ada Lovelace',
          mandateDate: '2026-11-20',
        },
      },
    });

    app.delete(
      '/members/:memberId/payment-method',
      {
        schema: {
          tags: ['members'],
          summary: 'Remove a member’s payment method',
          description: 'The member (or an admin) removes it; GET answers 204 after. Answers 204.',
          params: MemberParams,
        },
      },
      async (request, reply) => {
        const caller = callerOf(request);
        const member = await findMember(ctx.db, caller, request.params.memberId);
        const at = ctx.clock.now().toISOString();
        await ctx.events.transaction((trx) =>
          writePaymentPart(trx, member, 'paymentMethod', null, { at, by: caller.memberId }),
        );
        return reply.code(204).send();
      },
    );

    app.get(
      '/members/:memberId/payment-method-mandate-preview',
      {
        schema: {
          tags: ['members'],
          summary: 'Preview a member’s SEPA mandate',
          description:
            'The mandate the member would sign: the creditor id and mandate text of the space’s billing settings, with the member’s account holder, IBAN and mandate reference.',
          params: MemberParams,
          response: { 200: MandatePreview },
        },
      },
      async (request) => {
        const member = await findMember(ctx.db, callerOf(request), request.params.memberId);
        return mandatePreview(ctx.db, member);
      },
    );
  };
}
