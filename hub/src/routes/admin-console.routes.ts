import {
  PairingCode,
  PairingRedeem,
  PairingRedeemed,
  UnknownCard,
  UnknownCardsQuery,
} from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { HubServices } from '../http/services.js';
import { adminRoute } from '../http/route.js';
import { adminCreatedRoute, publicRoute } from '../http/route-kinds.js';
import { createPairing, redeemPairing } from '../resources/pairing.js';
import { recentUnknownCards } from '../resources/unknown-cards.js';
import { ResourceParams } from '../http/params.js';
import { onResourceInAccount } from './on-member.js';

/** What the admin console needs beyond the Fabman interface: bridge pairing and unknown cards. */
export function adminConsoleRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    adminCreatedRoute(
      app,
      'post',
      '/resources/:resourceId/bridge/pairing-codes',
      {
        tags: ['bridges'],
        summary: 'Create a one-use pairing code for a new bridge (admins)',
        description:
          'Answers the code once, with the one line to run on the Pi: `makerspace-agent pair <hub URL> <code>`. The code is valid for 30 minutes and one redemption; a new code replaces an unredeemed earlier one.',
        params: ResourceParams,
        response: { 201: PairingCode },
      },
      onResourceInAccount(ctx.db, (resource, _request, caller) => createPairing(ctx, caller, resource)),
    );

    publicRoute(
      app,
      'post',
      '/bridge-pairings/redeem',
      {
        tags: ['bridges'],
        summary: 'Redeem a pairing code for the bridge API key (the agent’s pair command)',
        description:
          'Needs no credentials: the code is the credential. It works once; the bridge gets a new API key (any agent on the old key is disconnected) and the key is answered this one time. Unknown, used and expired codes answer 400.',
        errors: { 400: 'The code is unknown, used or expired.' },
        example: { code: 'PAIR-7F3K-92QD' },
        security: [],
        body: PairingRedeem,
        response: { 200: PairingRedeemed },
      },
      (request) => redeemPairing(ctx, request.body.code),
    );

    adminRoute(
      app,
      'get',
      '/unknown-cards',
      {
        tags: ['keys'],
        summary: 'Cards recently refused as unknown (admins), to assign to a member',
        description:
          'From the denied resource logs with reason unknownKey, newest first; a card assigned to a member since is left out.',
        querystring: UnknownCardsQuery,
        response: { 200: z.array(UnknownCard) },
      },
      (request, caller) => recentUnknownCards(ctx, caller, request.query),
    );
  };
}
