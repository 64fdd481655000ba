import { AccountPaymentInfo, AccountRecord, AccountUpdate } from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { defined, flag } from '../db/crud.js';
import { collection, collectionRoutes, onRecord } from '../http/collection.js';
import type { HubServices } from '../http/services.js';
import { memberRoute } from '../http/route.js';
import { accountRecord, visibleAccounts } from '../identity/accounts.js';
import { adminOnly } from '../kernel/caller.js';
import { pathId } from '../http/params.js';
import { pagedNote } from '../http/openapi-doc.js';

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
  docs: {
    list: {
      summary: 'List the accounts the caller sees',
      description: `A member sees the account they belong to; superusers see every account. \`q\` searches the name. ${pagedNote}`,
    },
    get: {
      summary: 'Get an account',
      description: 'The caller’s own account (superusers: any account).',
    },
    update: {
      summary: 'Change the account',
      description:
        'Owners and admins change its name, locale, billing contact and `inviteMembers`; `trialEndDate` and the stamps are read-only and ignored.',
      example: { lockVersion: 0, name: 'Makerspace Linz', billingEmailAddress: 'board@example.org' },
    },
  },
});

const IdParams = z.object({ accountId: pathId });

export function accountsRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return collectionRoutes(ctx, accounts, async (app) => {
    memberRoute(
      app,
      'get',
      '/accounts/:accountId/payment-info',
      {
        tags: ['accounts'],
        summary: 'How the account pays',
        description:
          '`{id, paymentMethod, lockVersion}`. A self-hosted hub bills no account, so `paymentMethod` is null. Owners and admins.',
        admins: true,
        params: IdParams,
        response: { 200: AccountPaymentInfo },
      },
      onRecord(accounts, ctx, (row, _request, caller) => {
        adminOnly(caller);
        // The hub is self-hosted: nobody bills the account, so it has no payment method.
        return { id: row.id, paymentMethod: null, lockVersion: row.lockVersion };
      }),
    );
  });
}
