import { AccountPaymentInfo, AccountRecord, AccountUpdate } from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { defined, flag } from '../db/crud.js';
import { callerOf } from '../http/auth.js';
import { collection, collectionRoutes, findIn } from '../http/collection.js';
import type { HubServices } from '../http/services.js';
import { accountRecord, visibleAccounts } from '../identity/accounts.js';
import { adminOnly } from '../identity/caller.js';
import { pathId } from '../http/params.js';

/** spec 4.1: accounts (callers see their own; superusers every account). */
export const accounts = collection({
  table: 'accounts',
  record: AccountRecord,
  visible: visibleAccounts,
  toRecord: accountRecord,
  list: { search: 'name' },
  // Owners and admins change their account's name, locale and billing contact.
  update: {
    body: AccountUpdate,
    columns: ({ lockVersion: _, inviteMembers, ...fields }) =>
      defined({ ...fields, inviteMembers: flag(inviteMembers) }),
  },
});

const IdParams = z.object({ accountId: pathId });

export function accountsRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return collectionRoutes(ctx, accounts, async (app) => {
    app.get(
      '/accounts/:accountId/payment-info',
      { schema: { tags: ['accounts'], params: IdParams, response: { 200: AccountPaymentInfo } } },
      async (request) => {
        const caller = callerOf(request);
        const row = await findIn(accounts, ctx, caller, {}, request.params.accountId);
        adminOnly(caller);
        // The hub is self-hosted: nobody bills the account, so it has no payment method.
        return { id: row.id, paymentMethod: null, lockVersion: row.lockVersion };
      },
    );
  });
}
