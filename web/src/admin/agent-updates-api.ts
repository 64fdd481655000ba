/** The agent updates panel's calls: public /api/v1 operations, through the app's one `call`. */
import type { AgentReleaseInfo, AgentUpdateRecord, AgentUpdatesStarted } from '@makerspace/shared';
import { call } from '../api';

export type { AgentReleaseInfo, AgentUpdateRecord, AgentUpdatesStarted };

export const agentUpdatesApi = {
  release: () => call<AgentReleaseInfo>('GET', '/agent-release'),
  list: () => call<AgentUpdateRecord[]>('GET', '/agent-updates'),
  updateAll: () => call<AgentUpdatesStarted>('POST', '/agent-updates', {}),
  update: (resource: number) => call<AgentUpdateRecord>('POST', `/resources/${resource}/bridge/agent-update`),
};
