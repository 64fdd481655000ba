/** The calls of the kiosk page and the dashboard's "who is in": public /api/v1 operations. */
import type { CheckInRecord, PresenceRecord } from '@makerspace/shared';
import { call } from '../api';

export type { CheckInRecord, PresenceRecord };

export const presenceApi = {
  presence: (space?: number) => call<PresenceRecord>('GET', `/presence${space ? `?space=${space}` : ''}`),
  checkIn: () => call<CheckInRecord>('POST', '/check-ins', {}),
  checkOut: (id: number) => call<CheckInRecord>('POST', `/check-ins/${id}/check-out`),
  showPresence: (member: number) =>
    call<{ showPresence: boolean }>('GET', `/members/${member}/presence-settings`),
  setShowPresence: (member: number, showPresence: boolean) =>
    call<{ showPresence: boolean }>('PUT', `/members/${member}/presence-settings`, { showPresence }),
};
