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
import type { HubServices } from '../http/services.js';
import { noContentRoute } from '../http/route-kinds.js';
import { memberRoute } from '../http/route.js';
import { unwrittenRecord } from '../http/unwritten.js';
import { adminOnly, type Caller } from '../kernel/caller.js';
import { onMember } from './on-member.js';
import { MemberParams } from '../http/params.js';
import type { OperationDoc } from '../http/openapi-doc.js';

/** Writes one part of a member's payment details (null: removes it) as the caller's change, now. */
export function changePaymentPart(
  ctx: HubServices,
  caller: Caller,
  member: { id: number; account: number },
  part: PaymentPart,
  body: Record<string, unknown> | null,
) {
  const stamp = { at: ctx.clock.now().toISOString(), by: caller.memberId };
  return ctx.events.transaction((trx) => writePaymentPart(trx, member, part, body, stamp));
}

/**
 * A member's money: balance items, payment account (admins write), payment method (the member
 * or an admin writes), and the SEPA mandate preview. Members see their own (404 for others').
 */
export function memberPaymentsRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    memberRoute(
      app,
      'get',
      '/members/:memberId/balance-items',
      {
        tags: ['members'],
        summary: 'A member’s balance items',
        description:
          'The sums of the member’s invoices (not cancelled), completed payments, uninvoiced charges (`sumCharges`) and uninvoiced booking charges (`sumUnpaidBookings`), the prepaid `balance`, and the open `items` behind them (uninvoiced charges, unpaid invoices, payments), newest first; an item’s `amount` is what it adds to the balance.',
        params: MemberParams,
        response: { 200: BalanceItems },
      },
      onMember(ctx.db, (member) => memberBalanceItems(ctx.db, member.id)),
    );

    const part = (
      path: string,
      name: PaymentPart,
      [record, body]: [z.ZodObject, z.ZodType],
      admins: boolean,
      docs: { read: OperationDoc; write: OperationDoc },
    ) => {
      const unwritten = unwrittenRecord(record);
      memberRoute(
        app,
        'get',
        `/members/:memberId/${path}`,
        {
          tags: ['members'],
          ...docs.read,
          params: MemberParams,
          response: { 200: unwritten.schema },
        },
        onMember(
          ctx.db,
          async (member) => (await paymentPart(ctx.db, member.id, name)) ?? unwritten.of(member.id),
        ),
      );
      memberRoute(
        app,
        'put',
        `/members/:memberId/${path}`,
        {
          tags: ['members'],
          ...docs.write,
          params: MemberParams,
          body,
          response: { 200: record as z.ZodType },
        },
        onMember(ctx.db, (member, request, caller) => {
          if (admins) adminOnly(caller);
          return changePaymentPart(ctx, caller, member, name, request.body as Record<string, unknown>);
        }),
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

    noContentRoute(
      app,
      'delete',
      '/members/:memberId/payment-method',
      {
        tags: ['members'],
        summary: 'Remove a member’s payment method',
        description: 'The member (or an admin) removes it; GET answers 204 after. Answers 204.',
        params: MemberParams,
      },
      onMember(ctx.db, async (member, _request, caller) => {
        await changePaymentPart(ctx, caller, member, 'paymentMethod', null);
      }),
    );

    memberRoute(
      app,
      'get',
      '/members/:memberId/payment-method-mandate-preview',
      {
        tags: ['members'],
        summary: 'Preview a member’s SEPA mandate',
        description:
          'The mandate the member would sign: the creditor id and mandate text of the space’s billing settings, with the member’s account holder, IBAN and mandate reference.',
        params: MemberParams,
        response: { 200: MandatePreview },
      },
      onMember(ctx.db, (member) => mandatePreview(ctx.db, member)),
    );
  };
}
