import type { AccessCheck } from '@makerspace/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { summaryLines } from '../../web/src/admin/access-preview';
import { stepText } from '../../web/src/admin/agent-updates';
import '../../web/src/i18n/admin-catalogs';
import { verdictText } from '../../web/src/format';
import { setLanguage } from '../../web/src/i18n/i18n';

/** The hub's answer for a machine whose interlock "Lid" is open (the message is English). */
const interlocked = {
  allowed: false,
  reason: 'interlock',
  message: 'The interlock "Lid" is open: close it, then switch on',
  until: null,
  retryAfter: null,
  maxDuration: null,
  trainingCourses: [],
  trainingExpired: null,
} as unknown as AccessCheck;

/** Two members lose the laser on Sundays (Berlin), one gains the door on Monday. */
const simulation = {
  from: '2026-11-29T00:00:00Z',
  until: '2026-12-06T00:00:00Z',
  slotMinutes: 60,
  timeZone: 'Europe/Berlin',
  evaluated: { members: 3, resources: 2, slots: 168, decisions: 1008 },
  changes: [
    ...[1, 2].map((member) => ({
      member,
      memberName: `Member ${member}`,
      resource: 7,
      resourceName: 'Laser',
      gains: [],
      loses: [{ from: '2026-11-29T09:00:00Z', until: '2026-11-29T17:00:00Z' }],
      reason: 'openingHours',
      message: 'outside opening hours',
    })),
    {
      member: 3,
      memberName: 'Ada Lovelace',
      resource: 8,
      resourceName: 'Front door',
      gains: [{ from: '2026-11-30T09:00:00Z', until: '2026-11-30T10:00:00Z' }],
      loses: [],
      reason: 'openingHours',
      message: 'outside opening hours',
    },
  ],
};

describe('interlock verdicts, access previews and agent updates in English and German', () => {
  afterEach(() => setLanguage('en'));

  it('says which interlock is open in the member’s language', () => {
    expect(verdictText(interlocked, 'machine')).toBe(
      'The interlock "Lid" is open: close it, then switch on.',
    );
    setLanguage('de');
    expect(verdictText(interlocked, 'machine')).toBe(
      'Die Schutzverriegelung „Lid“ ist offen: Schließ sie und schalte dann ein.',
    );
  });

  it('sums up an access preview with the days in each language', () => {
    expect(summaryLines(simulation)).toEqual([
      '2 members lose Laser on Sundays',
      'Ada Lovelace gains Front door on Mondays',
    ]);
    setLanguage('de');
    expect(summaryLines(simulation)).toEqual([
      '2 Mitglieder verlieren sonntags den Zugang zu Laser',
      'Ada Lovelace bekommt montags Zugang zu Front door',
    ]);
  });

  it('says "every day" when the change touches each day of the week', () => {
    const allWeek = {
      ...simulation,
      changes: [
        {
          ...simulation.changes[0],
          loses: [{ from: '2026-11-29T09:00:00Z', until: '2026-12-06T00:00:00Z' }],
        },
      ],
    };
    expect(summaryLines(allWeek)).toEqual(['Member 1 loses Laser every day']);
    setLanguage('de');
    expect(summaryLines(allWeek)).toEqual(['Member 1 verliert täglich den Zugang zu Laser']);
  });

  it('names an agent update’s step and its failure in German', () => {
    setLanguage('de');
    const update = { step: 'rolledBack', version: '0.9.0', error: null } as Parameters<typeof stepText>[0];
    expect(stepText(update)).toBe('0.9.0 zurückgenommen: kein Grund angegeben');
  });
});
