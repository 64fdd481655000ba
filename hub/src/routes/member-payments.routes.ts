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
import { adminOnly } from '../identity/caller.js';
import { findMember } from '../identity/members.js';
import { MemberParams } from '../http/params.js';

/**
 * A member's money: balance items, payment account (admins write), payment method (the member
 * or an admin writes), and the SEPA mandate preview. Members see their own (404 for others').
 */
export function memberPaymentsRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/members/:memberId/balance-items',
      { schema: { tags: ['members'], params: MemberParams, response: { 200: BalanceItems } } },
      async (request) => {
        const member = await findMember(ctx.db, callerOf(request), request.params.memberId);
        return memberBalanceItems(ctx.db, member.id);
      },
    );

    const part = (path: string, name: PaymentPart, record: z.ZodObject, body: z.ZodType, admins: boolean) => {
      const unwritten = unwrittenRecord(record);
      app.get(
        `/members/:memberId/${path}`,
        { schema: { tags: ['members'], params: MemberParams, response: { 200: unwritten.schema } } },
        async (request) => {
          const member = await findMember(ctx.db, callerOf(request), request.params.memberId);
          return (await paymentPart(ctx.db, member.id, name)) ?? unwritten.of(member.id);
        },
      );
      app.put(
        `/members/:memberId/${path}`,
        { schema: { tags: ['members'], params: MemberParams, body, response: { 200: record as z.ZodType } } },
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
    part('payment-account', 'paymentAccount', PaymentAccountRecord, PaymentAccountUpdate, true);
    part('payment-method', 'paymentMethod', PaymentMethodRecord, PaymentMethodUpdate, false);

    app.delete(
      '/members/:memberId/payment-method',
      { schema: { tags: ['members'], params: MemberParams } },
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
      { schema: { tags: ['members'], params: MemberParams, response: { 200: MandatePreview } } },
      async (request) => {
        const member = await findMember(ctx.db, callerOf(request), request.params.memberId);
        return mandatePreview(ctx.db, member);
      },
    );
  };
}
