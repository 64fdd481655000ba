import {
  InvitationRecord,
  InvitationSent,
  LinkIssued,
  NextPath,
  type SignInLinkPurpose,
} from '@makerspace/shared';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { HubServices } from '../http/services.js';
import { memberRoute } from '../http/route.js';
import { bool } from '../db/crud.js';
import { requireAdmin } from '../http/auth.js';
import type { Caller } from '../kernel/caller.js';
import { forbidden, unprocessable } from '../errors.js';
import { findMember, type MemberRow } from '../identity/members.js';
import { onMember } from './on-member.js';
import { createLink, mailLink, supersedeInvitations } from '../sign-in/links.js';
import { canSignIn, invitationOf, markInvited } from '../sign-in/sign-in.repository.js';
import { MemberParams } from '../http/params.js';

const tags = ['sign-in'];

/** Why an invitation or a sign-in link for a member is refused, for the docs. */
const issueErrors = {
  403: 'Without SMTP, only owners may receive a link that signs in as an owner.',
  422: 'The member has no e-mail address or may not sign in.',
  503: 'The mail could not be sent.',
};

/** May the caller receive a link that signs in as this member (when no mail can carry it)? */
function mayHandOver(caller: Caller, member: MemberRow): boolean {
  if (caller.superuser) return true;
  if (bool(member.superuser)) return false;
  return member.privileges !== 'owner' || caller.privileges === 'owner';
}

/** Invitations and sign-in links that admins send members (docs/SIGN-IN.md). */
export function invitationsRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    /** Creates a link for a member and mails it, or hands it to the admin when there is no SMTP. */
    async function issueForMember(
      caller: Caller,
      member: MemberRow,
      purpose: SignInLinkPurpose,
      next: string | null,
      reply: FastifyReply,
    ) {
      if (!member.emailAddress) {
        throw unprocessable('The member has no e-mail address', { field: 'emailAddress' });
      }
      if (!canSignIn(member)) {
        throw unprocessable('The member may not sign in (locked, or allowLogin is false)', {
          field: 'allowLogin',
        });
      }
      if (!ctx.mailer && !mayHandOver(caller, member)) {
        throw forbidden('Only owners may receive a link that signs in as an owner');
      }
      const link = await createLink(ctx, member, purpose, next, caller.memberId);
      const emailSent = await mailLink(ctx, member, link);
      if (!emailSent) reply.header('cache-control', 'no-store');
      return {
        link,
        issued: { emailSent, ...(emailSent ? {} : { link: link.url }), expiresAt: link.row.expiresAt },
      };
    }

    app.post(
      '/members/:memberId/invitation',
      {
        schema: {
          tags,
          summary: 'Invite a member to set up their sign-in (mails a link valid for 7 days)',
          description:
            'The link stays valid for HUB_INVITATION_DAYS days (7 by default; `expiresAt` says until when; GET /hub-info tells the setting). Without SMTP configured, emailSent is false and `link` carries the URL for the admin to hand over. A new invitation supersedes older unused ones.',
          admins: true,
          errors: issueErrors,
          params: MemberParams,
          response: { 200: InvitationSent },
        },
      },
      async (request, reply) => {
        const caller = requireAdmin(request);
        const member = await findMember(ctx.db, caller, request.params.memberId);
        const { link, issued } = await issueForMember(caller, member, 'invitation', null, reply);
        const at = ctx.clock.now().toISOString();
        await ctx.db.transaction().execute(async (trx) => {
          await supersedeInvitations(trx, member.id, link.row.id, at);
          await markInvited(trx, member, caller.memberId, at);
        });
        return { member: member.id, invitedBy: caller.memberId, status: 'invited' as const, ...issued };
      },
    );

    memberRoute(
      app,
      'get',
      '/members/:memberId/invitation',
      {
        tags,
        summary: "A member's invitation status",
        description: '`notInvited`, `invited` (when, by whom) or `accepted`.',
        params: MemberParams,
        response: { 200: InvitationRecord },
      },
      onMember(ctx.db, async (member) => {
        const row = await invitationOf(ctx.db, member.id);
        return {
          member: member.id,
          invitedBy: row?.invitedBy ?? null,
          status: (row?.status ?? 'notInvited') as InvitationRecord['status'],
          invitedAt: row?.invitedAt ?? null,
        };
      }),
    );

    app.post(
      '/members/:memberId/sign-in-link',
      {
        schema: {
          tags,
          summary: 'Mail a member a sign-in link (or, without SMTP, hand it to the admin)',
          description: 'The link works once, for 15 minutes (`expiresAt`).',
          admins: true,
          errors: issueErrors,
          example: { next: '/r/7' },
          params: MemberParams,
          body: z.strictObject({ next: NextPath.optional() }).nullish(),
          response: { 200: LinkIssued },
        },
      },
      async (request, reply) => {
        const caller = requireAdmin(request);
        const member = await findMember(ctx.db, caller, request.params.memberId);
        const { issued } = await issueForMember(caller, member, 'signIn', request.body?.next ?? null, reply);
        return issued;
      },
    );
  };
}
