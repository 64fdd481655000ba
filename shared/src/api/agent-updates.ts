import { z } from 'zod';
import { UpdateStep } from '../protocol.js';
import { Id } from './common.js';

/** The agent release the hub offers its bridges (GET /agent-release). */
export const AgentReleaseInfo = z.object({
  available: z
    .boolean()
    .describe('Whether the hub has a release bundle to offer (`npm run build` makes one)'),
  version: z.string().nullable().describe('The release’s version'),
  size: z.int().nullable().describe('The bundle’s size in bytes'),
  sha256: z.string().nullable().describe('The bundle’s SHA-256, lowercase hex'),
  publicKey: z
    .string()
    .describe('The hub’s release signing key (Ed25519, SPKI PEM), which agents receive when they are paired'),
});
export type AgentReleaseInfo = z.infer<typeof AgentReleaseInfo>;

/** Where an update is: `requested` (sent to the agent), then the agent's steps. */
export const AgentUpdateStep = z.union([z.literal('requested'), UpdateStep]);
export type AgentUpdateStep = z.infer<typeof AgentUpdateStep>;

export const AgentUpdateState = z.object({
  id: z.string(),
  version: z.string().describe('The version being installed'),
  fromVersion: z.string().nullable().describe('The version the agent ran when the update started'),
  step: AgentUpdateStep,
  error: z.string().nullable().describe('Why the update failed or was rolled back'),
  startedAt: z.string(),
  updatedAt: z.string(),
});
export type AgentUpdateState = z.infer<typeof AgentUpdateState>;

/** A bridge, its agent's version and its last update (GET /agent-updates). */
export const AgentUpdateRecord = z.object({
  resource: Id,
  name: z.string(),
  online: z.boolean(),
  agentVersion: z.string().nullable(),
  /** Whether the release is newer than what the agent runs. */
  updateAvailable: z.boolean(),
  update: AgentUpdateState.nullable(),
});
export type AgentUpdateRecord = z.infer<typeof AgentUpdateRecord>;

/** Which bridges to update (POST /agent-updates); none named: every online bridge with an older agent. */
export const AgentUpdatesStart = z.object({
  resources: z.array(Id).max(1000).optional(),
});

/** What starting updates for several bridges did, per bridge (`updating`: one is under way already). */
export const AgentUpdatesStarted = z.object({
  version: z.string(),
  bridges: z.array(
    z.object({
      resource: Id,
      outcome: z.enum(['started', 'upToDate', 'offline', 'updating']),
    }),
  ),
});
export type AgentUpdatesStarted = z.infer<typeof AgentUpdatesStarted>;
