import { createReadStream } from 'node:fs';
import {
  AgentReleaseInfo,
  AgentUpdateRecord,
  AgentUpdatesStart,
  AgentUpdatesStarted,
} from '@makerspace/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notFound } from '../errors.js';
import { requireAdmin, tokenFromHeader } from '../http/auth.js';
import { ResourceParams } from '../http/params.js';
import { adminRoute } from '../http/route.js';
import type { HubServices } from '../http/services.js';
import {
  agentReleases,
  listAgentUpdates,
  releaseInfo,
  startAgentUpdate,
  startAgentUpdates,
} from '../resources/agent-updates.js';
import { bridgeByKey } from '../resources/http-bridge.js';

const tags = ['bridges'];
const howItGoes =
  'The hub tells the agent over MQTT; the agent downloads the signed release from the bridge API, checks its signature (the hub’s key from pairing) and that it is newer, installs it beside the running version, restarts, and goes back to the previous version when the new one does not connect within a minute. Its progress shows in GET /agent-updates.';

/** Agent updates (docs/OPERATIONS.md, "Updating agents"): the release, starting updates, progress. */
export function agentUpdatesRoutes(ctx: HubServices): FastifyPluginAsyncZod {
  return async (app) => {
    adminRoute(
      app,
      'get',
      '/agent-release',
      {
        tags,
        summary: 'The agent release this hub offers its bridges (admins)',
        description:
          'The newest bundle `npm run build` made (agent/dist-release, or HUB_AGENT_RELEASE_DIR): its version, size and SHA-256, and the hub’s release signing key, which agents receive when they are paired.',
        response: { 200: AgentReleaseInfo },
      },
      async () => releaseInfo(ctx),
    );

    adminRoute(
      app,
      'get',
      '/agent-updates',
      {
        tags,
        summary: 'Every bridge’s agent version and its last update (admins)',
        description:
          'Per bridge of the account: online, the version its agent runs, whether the hub offers a newer one, and the last update with its step (`requested`, `downloading`, `verifying`, `installed`, `waitingForIdle` while a machine runs, `restarting`, `connected` on the new version; or `failed` / `rolledBack` with the reason).',
        response: { 200: z.array(AgentUpdateRecord) },
      },
      async (_request, caller) => listAgentUpdates(ctx, caller),
    );

    app.post(
      '/agent-updates',
      {
        schema: {
          tags,
          summary: 'Update the agents of several bridges, or of all (admins)',
          description: `Starts an update on each named bridge (\`resources\`), or on every bridge of the account when none are named, that is online, runs an older agent and has no update under way; the others are answered as \`upToDate\`, \`offline\` or \`updating\`. ${howItGoes} Answers 202; 409 when the hub has no release to offer.`,
          admins: true,
          errors: { 409: 'The hub has no agent release to offer.' },
          example: { resources: [12, 13] },
          body: AgentUpdatesStart.optional(),
          response: { 202: AgentUpdatesStarted },
        },
      },
      async (request, reply) => {
        const caller = requireAdmin(request);
        return reply.code(202).send(await startAgentUpdates(ctx, caller, request.body?.resources));
      },
    );

    app.post(
      '/resources/:resourceId/bridge/agent-update',
      {
        schema: {
          tags,
          summary: 'Update the agent of a resource’s bridge (admins)',
          description: `${howItGoes} Answers 202 with the bridge’s update state; 404 without a bridge; 409 when the bridge is offline, already runs the release (or a newer one), has an update under way (one silent for 10 minutes counts as lost), or the hub has no release to offer.`,
          admins: true,
          errors: { 409: 'The bridge is offline, up to date or updating, or the hub has no release.' },
          params: ResourceParams,
          response: { 202: AgentUpdateRecord },
        },
      },
      async (request, reply) => {
        const caller = requireAdmin(request);
        return reply.code(202).send(await startAgentUpdate(ctx, caller, request.params.resourceId));
      },
    );

    app.get(
      '/bridge/agent-release',
      {
        config: { public: true },
        schema: {
          tags: ['bridge'],
          summary: 'Download the agent release (bridges)',
          description:
            'The release bundle (`application/gzip`) an agent installs when the hub asks it to update; authenticated with the bridge API key. Its version and SHA-256 are in `X-Release-Version` and `X-Release-Sha256`; the signature comes with the update message, so the bytes are checked against the hub’s key whatever path they took. 404 when the hub has no release.',
          security: [{ bearer: [] }],
          produces: ['application/gzip'],
          response: {
            200: {
              description: 'The bundle',
              content: {
                'application/gzip': { schema: z.file().describe('makerspace-agent-<version>.tgz') },
              },
            },
          },
        },
      },
      async (request, reply) => {
        await bridgeByKey(ctx, tokenFromHeader(request.headers.authorization));
        const release = await agentReleases(ctx).current();
        if (!release) throw notFound('Agent release');
        return reply
          .type('application/gzip')
          .header('content-length', release.size)
          .header('x-release-version', release.version)
          .header('x-release-sha256', release.sha256)
          .header('content-disposition', `attachment; filename="makerspace-agent-${release.version}.tgz"`)
          .send(createReadStream(release.file) as unknown as File);
      },
    );
  };
}
