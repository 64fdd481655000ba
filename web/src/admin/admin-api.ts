/** The admin pages' calls: public /api/v1 operations, through the app's one `call`. */
import type {
  KeyAssignmentRecord,
  MemberKeyRecord,
  MemberRecord,
  PairingCode,
  ResourceRecord,
  SwitchOnResult,
  UnknownCard,
  WebhookRecord,
} from '@makerspace/shared';
import { call, callWithTotal } from '../api';

export type {
  KeyAssignmentRecord,
  MemberKeyRecord,
  MemberRecord,
  PairingCode,
  ResourceRecord,
  UnknownCard,
  WebhookRecord,
};

export const adminApi = {
  resources: () => call<ResourceRecord[]>('GET', '/resources?limit=1000&orderBy=name'),
  memberPage: (q: string, offset: number, limit = 25) =>
    callWithTotal<MemberRecord[]>(
      'GET',
      `/members?limit=${limit}&offset=${offset}&orderBy=lastName${q ? `&q=${encodeURIComponent(q)}` : ''}`,
    ),
  createMember: (body: Record<string, unknown>) => call<MemberRecord>('POST', '/members', body),
  updateMember: (id: number, body: Record<string, unknown>) =>
    call<MemberRecord>('PUT', `/members/${id}`, body),
  invite: (id: number) =>
    call<{ emailSent: boolean; link?: string; expiresAt: string }>('POST', `/members/${id}/invitation`),
  memberLogs: (id: number) =>
    call<
      {
        id: number;
        resource: number;
        type: string;
        reason: string | null;
        createdAt: string;
        stoppedAt: string | null;
      }[]
    >('GET', `/resource-logs?member=${id}&limit=10&order=desc`),
  members: (q: string) =>
    call<MemberRecord[]>('GET', `/members?limit=50${q ? `&q=${encodeURIComponent(q)}` : ''}`),
  remoteSwitchOn: (r: ResourceRecord) =>
    call<SwitchOnResult>('POST', `/resources/${r.id}/switch-on`, { code: (r as any).switchOnCode }),
  switchOff: (id: number) => call<unknown>('POST', `/resources/${id}/bridge/switch-off`),
  createBridge: (id: number) => call<unknown>('PUT', `/resources/${id}/bridge`, {}),
  rotateKey: (id: number) => call<unknown>('PUT', `/resources/${id}/bridge`, { rotateApiKey: true }),
  pairingCode: (id: number) => call<PairingCode>('POST', `/resources/${id}/bridge/pairing-codes`),
  webhooks: () => call<WebhookRecord[]>('GET', '/webhooks?limit=100'),
  unknownCards: () => call<UnknownCard[]>('GET', '/unknown-cards'),
  startAssignment: (member: number, resource: number) =>
    call<KeyAssignmentRecord>('POST', '/key-assignments', { member, resource }),
  assignment: (id: number) => call<KeyAssignmentRecord>('GET', `/key-assignments/${id}`),
  cancelAssignment: (id: number) => call<void>('DELETE', `/key-assignments/${id}`),
  key: (member: number) => call<MemberKeyRecord>('GET', `/members/${member}/key`),
  putKey: (member: number, type: string, token: string) =>
    call<MemberKeyRecord>('PUT', `/members/${member}/key`, { type, token }),
  keyLost: (member: number) => call<MemberKeyRecord>('POST', `/members/${member}/key/lost`),
  removeKey: (member: number) => call<void>('DELETE', `/members/${member}/key`),
};

export const memberName = (m: { firstName: string; lastName?: string | null }) =>
  `${m.firstName} ${m.lastName ?? ''}`.trim();
