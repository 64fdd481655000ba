import {
  HouseRulesAcceptanceRecord,
  HouseRulesRecord,
  HouseRulesUpdate,
  SignUpConfirm,
  SignUpConfirmed,
  SignUpCreate,
  SignUpCreated,
  SignUpLinkRequest,
  SignUpOffer,
  SignUpRecord,
  SignUpReject,
  SignUpSettingsRecord,
  SignUpSettingsUpdate,
  SignUpSpaces,
  SignUpStatus,
  UserHouseRules,
  UserHouseRulesAccept,
} from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { HttpError } from '../errors.js';
import { callerOf } from '../http/auth.js';
import { pathId, SpaceParams } from '../http/params.js';
import type { OperationDoc } from '../http/openapi-doc.js';
import { fileReply } from '../http/file-reply.js';
import type { HubServices } from '../http/services.js';
import type { Caller } from '../kernel/caller.js';
import { publicRoute } from '../http/route-kinds.js';
import { adminRoute, memberRoute } from '../http/route.js';
import {
  acceptancesCsv,
  acceptHouseRules,
  approveSignUp,
  confirmByHand,
  confirmSignUpEmail,
  createSignUp,
  getSignUp,
  houseRulesAcceptances,
  listSignUps,
  publicHouseRules,
  readSettings,
  rejectSignUp,
  resendConfirmLinks,
  saveHouseRules,
  saveSettings,
  signUpOffer,
  signUpSpaces,
  userHouseRules,
} from '../sign-up/sign-ups.js';
import { admitted } from './sign-in.support.js';

const tags = ['sign-up'];
const open = { public: true };
const noAuth: Record<string, string[]>[] = [];
const SignUpParams = z.object({ signUpId: pathId });
/** The docs of what a stranger reads of a space open to sign-up (openRead). */
const openReads = {
  offer: {
    summary: 'What a stranger chooses and accepts to join a space',
    description:
      'Public while the space’s sign-up is on: the space, the packages offered and the current version of the house rules and waiver.',
  },
  houseRules: {
    summary: 'Get a space’s house rules and waiver',
    description:
      'Public while the space’s sign-up is on: the current version (sanitized rich text). Admins read them at any time in the sign-up settings; members in `GET /user/house-rules`.',
  },
} satisfies Record<string, OperationDoc>;
const decidedAlready = 'The sign-up was approved or rejected already.';

/** docs/DECISIONS.md, "Sign-up": strangers join a space alone; admins approve them. */
export function signUpsRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    // Per source address (shared by the hubs of a cluster): a flood of sign-ups or of link
    // requests waits.
    const { signUpsPerAddress, signUpLinksPerAddress } = ctx.throttles;

    app.get(
      '/sign-ups/spaces',
      {
        config: open,
        schema: {
          tags,
          summary: 'List the spaces open to sign-up',
          description:
            'Public: the id and name of each space whose sign-up is on (the join page offers them); 404 when none is.',
          errors: { 404: 'No space is open to sign-up.' },
          security: noAuth,
          response: { 200: SignUpSpaces },
        },
      },
      async () => {
        const spaces = await signUpSpaces(ctx.db);
        if (spaces.length === 0) throw new HttpError(404, 'Sign-up is not open', { signUpClosed: true });
        return spaces;
      },
    );

    /** What a stranger reads of a space while its sign-up is on (404 otherwise). */
    const openRead = <Answer extends z.ZodType>(
      path: string,
      doc: OperationDoc,
      record: Answer,
      read: (db: HubServices['db'], spaceId: number) => Promise<z.output<Answer>>,
    ) =>
      publicRoute(
        app,
        'get',
        `/spaces/:spaceId/${path}`,
        {
          tags,
          ...doc,
          errors: { 404: 'Sign-up is not open at this space.' },
          security: noAuth,
          params: SpaceParams,
          response: { 200: record },
        },
        // The answer's type follows `record`, which Fastify's types cannot see through a generic.
        (request) => read(ctx.db, request.params.spaceId) as never,
      );

    openRead('sign-up', openReads.offer, SignUpOffer, signUpOffer);
    openRead('house-rules', openReads.houseRules, HouseRulesRecord, publicHouseRules);

    app.put(
      '/spaces/:spaceId/house-rules',
      {
        schema: {
          tags,
          summary: 'Edit a space’s house rules and waiver',
          description:
            'Both texts are rich text, sanitized as other rich-text fields. A changed text makes a new version, which every member is asked to accept on their next visit to the web app; saving the same texts again changes nothing.',
          admins: true,
          errors: { 409: 'Another admin saved a new version at the same moment.' },
          example: {
            houseRules: '<p>Leave every machine clean.</p>',
            waiver: '<p>I use the machines at my own risk.</p>',
          },
          params: SpaceParams,
          body: HouseRulesUpdate,
          response: { 200: HouseRulesRecord },
        },
      },
      async (request) =>
        saveHouseRules(
          ctx.db,
          callerOf(request),
          request.params.spaceId,
          request.body,
          ctx.clock.now().toISOString(),
        ),
    );

    app.get(
      '/spaces/:spaceId/house-rules/acceptances',
      {
        schema: {
          tags,
          summary: 'Export who accepted which version of the house rules',
          description:
            'Every acceptance of the space’s house rules and waiver, oldest first: the member, the version, when, and where (`signUp` on the join page, `app` after a change). `format=csv` answers a CSV file for a spreadsheet.',
          admins: true,
          params: SpaceParams,
          querystring: z.object({ format: z.enum(['json', 'csv']).default('json') }),
          produces: ['application/json', 'text/csv'],
          response: { 200: z.array(HouseRulesAcceptanceRecord) },
        },
      },
      async (request, reply) => {
        const rows = await houseRulesAcceptances(ctx.db, callerOf(request), request.params.spaceId);
        if (request.query.format === 'json') return rows;
        const name = `house-rules-acceptances-${request.params.spaceId}.csv`;
        return fileReply(reply, { type: 'text/csv; charset=utf-8', name })
          .serializer((s: unknown) => s as string)
          .send(acceptancesCsv(rows) as never);
      },
    );

    app.get(
      '/spaces/:spaceId/sign-up-settings',
      {
        schema: {
          tags,
          summary: 'Get a space’s sign-up settings',
          description: 'Off by default. With the current house rules and waiver.',
          admins: true,
          params: SpaceParams,
          response: { 200: SignUpSettingsRecord },
        },
      },
      async (request) => readSettings(ctx.db, callerOf(request), request.params.spaceId),
    );

    app.put(
      '/spaces/:spaceId/sign-up-settings',
      {
        schema: {
          tags,
          summary: 'Turn sign-up on or off and choose what a space asks',
          description:
            'The packages a stranger may choose, and what must be done before an admin’s approval activates the member: a training course, a key card, a first payment. Turning sign-up on needs at least one package and saved house rules.',
          admins: true,
          errors: {
            422: 'A package does not exist or is archived, the training course does not exist, or sign-up is turned on without packages or house rules (`data.field`).',
          },
          example: {
            enabled: true,
            packages: [2],
            requireTraining: null,
            requireKeyCard: true,
            requireFirstPayment: false,
          },
          params: SpaceParams,
          body: SignUpSettingsUpdate,
          response: { 200: SignUpSettingsRecord },
        },
      },
      async (request) =>
        saveSettings(
          ctx.db,
          callerOf(request),
          request.params.spaceId,
          request.body,
          ctx.clock.now().toISOString(),
        ),
    );

    app.post(
      '/sign-ups',
      {
        config: open,
        schema: {
          tags,
          summary: 'Sign up as a new member (the join page)',
          description:
            'Public. Creates a pending member (no access, no charges) with the chosen package waiting, records the accepted version of the house rules and waiver, and mails a link that confirms the e-mail address. An admin approves the sign-up once the space’s checklist is done. Emits `signUp_created`.',
          errors: {
            400: 'A field is missing or malformed (`data.field`).',
            404: 'Sign-up is not open at this space.',
            409: 'The e-mail address cannot sign up here (sign in instead).',
            422: 'The package is not offered, or the house rules changed since they were read (`data.currentVersion`).',
            429: 'Too many sign-ups from this address; wait `Retry-After` seconds.',
          },
          example: {
            firstName: 'Ada',
            lastName: 'Lovelace',
            emailAddress: 'ada@example.org',
            package: 2,
            acceptedVersion: 3,
          },
          security: noAuth,
          body: SignUpCreate,
          response: { 201: SignUpCreated },
        },
      },
      async (request, reply) => {
        await admitted([[signUpsPerAddress, request.ip]]);
        const answer = await createSignUp(ctx, request.body, request.ip ?? null);
        return reply.code(201).send(answer);
      },
    );

    publicRoute(
      app,
      'post',
      '/sign-ups/confirm',
      {
        tags,
        summary: 'Confirm a sign-up’s e-mail address (the mailed link)',
        description: 'Public. The token of the mailed link. A link opened again answers as the first time.',
        errors: {
          400: 'The link is not valid (a newer one may have been sent).',
          410: 'The link has expired: ask for a new one (`POST /sign-ups/confirm-links`).',
        },
        example: { token: 'Zt4rW9xq2mBf7LkP0aVn' },
        security: noAuth,
        body: SignUpConfirm,
        response: { 200: SignUpConfirmed },
      },
      (request) => confirmSignUpEmail(ctx, request.body.token),
    );

    app.post(
      '/sign-ups/confirm-links',
      {
        config: open,
        schema: {
          tags,
          summary: 'Ask for a new confirmation link',
          description:
            'Public. Answers 202 whether or not the address has a sign-up; when it has one waiting for its confirmation, a new link is mailed (older links stop working).',
          errors: { 429: 'Too many links asked from this address; wait `Retry-After` seconds.' },
          example: { emailAddress: 'ada@example.org' },
          security: noAuth,
          body: SignUpLinkRequest,
          response: { 202: z.object({}) },
        },
      },
      async (request, reply) => {
        await admitted([[signUpLinksPerAddress, request.ip]]);
        await resendConfirmLinks(ctx, request.body.emailAddress);
        return reply.code(202).send({});
      },
    );

    adminRoute(
      app,
      'get',
      '/sign-ups',
      {
        tags,
        summary: 'List sign-ups with their checklists',
        description:
          'Newest first. Each sign-up carries its checklist (e-mail confirmed, house rules accepted, and the training, key card and first payment the space asks for) and `missing`, what approval still waits for.',
        querystring: z.object({ status: SignUpStatus.optional() }),
        response: { 200: z.array(SignUpRecord) },
      },
      (request, caller) => listSignUps(ctx.db, caller, ctx.clock.now(), request.query.status),
    );

    adminRoute(
      app,
      'get',
      '/sign-ups/:signUpId',
      {
        tags,
        summary: 'Get a sign-up with its checklist',
        description:
          'The person, the package chosen, the version of the house rules accepted, the checklist and `missing`, what approval still waits for.',
        params: SignUpParams,
        response: { 200: SignUpRecord },
      },
      (request, caller) => getSignUp(ctx.db, caller, request.params.signUpId, ctx.clock.now()),
    );

    /** An admin's step on a sign-up (`POST /sign-ups/:signUpId/<step>`), answering the sign-up. */
    const signUpStep = (
      step: string,
      doc: OperationDoc,
      act: (caller: Caller, signUpId: number) => Promise<SignUpRecord>,
    ) =>
      adminRoute(
        app,
        'post',
        `/sign-ups/:signUpId/${step}`,
        { tags, ...doc, params: SignUpParams, response: { 200: SignUpRecord } },
        (request, caller) => act(caller, request.params.signUpId),
      );

    signUpStep(
      'confirm-email',
      {
        summary: 'Confirm a sign-up’s e-mail address by hand',
        description: 'For a hub without a mail server, or a person who shows their address in person.',
        errors: { 409: decidedAlready },
      },
      (caller, signUpId) => confirmByHand(ctx, caller, signUpId),
    );

    signUpStep(
      'approve',
      {
        summary: 'Approve a sign-up: the member becomes active with their package',
        description:
          'Only when the checklist is complete. The member becomes active and gets the package they chose, billed as when an admin gives a package (setup fee, first period, credits).',
        errors: {
          409: decidedAlready,
          422: 'The checklist is not complete (`data.missing`), or the package was archived.',
        },
      },
      (caller, signUpId) => approveSignUp(ctx, caller, signUpId),
    );

    adminRoute(
      app,
      'post',
      '/sign-ups/:signUpId/reject',
      {
        tags,
        summary: 'Reject a sign-up',
        description:
          'The member stays, locked, with the reason in the sign-up; delete the member to free the e-mail address.',
        errors: { 409: decidedAlready },
        example: { reason: 'Not a resident of the town' },
        params: SignUpParams,
        body: SignUpReject,
        response: { 200: SignUpRecord },
      },
      (request, caller) => rejectSignUp(ctx, caller, request.params.signUpId, request.body.reason ?? null),
    );

    memberRoute(
      app,
      'get',
      '/user/house-rules',
      {
        tags,
        summary: 'The caller’s house rules and whether they accepted this version',
        description: 'Version 0 (and `accepted: true`) while the space has none.',
        response: { 200: UserHouseRules },
      },
      (_request, caller) => userHouseRules(ctx.db, caller),
    );

    memberRoute(
      app,
      'post',
      '/user/house-rules/accept',
      {
        tags,
        summary: 'Accept the current version of the house rules',
        description: 'Records the acceptance with its version and time (the admins’ export lists it).',
        errors: {
          404: 'The space has no house rules.',
          409: 'A newer version exists (`data.currentVersion`).',
        },
        example: { version: 3 },
        body: UserHouseRulesAccept,
        response: { 200: UserHouseRules },
      },
      (request, caller) =>
        acceptHouseRules(ctx.db, caller, request.body.version, ctx.clock.now().toISOString()),
    );
  };
}
