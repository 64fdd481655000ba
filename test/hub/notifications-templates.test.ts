import { describe, expect, it } from 'vitest';
import { notificationKinds } from '../../hub/src/notifications/kinds.js';
import { languageOf, renderMail } from '../../hub/src/notifications/templates.js';

/** Parameters of every kind, with a name that HTML must not take for markup. */
const params = {
  invoiceId: 1,
  number: '2026-0042',
  total: '45.00',
  currency: 'EUR',
  dueDate: '2026-12-14',
  balance: '-3.50',
  bookingId: 7,
  resourceName: 'Laser <CO2>',
  from: '2026-12-01T09:00:00.000Z',
  until: '2026-12-01T10:30:00.000Z',
  packageName: 'Monthly',
  untilDate: '2026-12-10',
  courseTitle: 'Laser safety',
  lastSeenAt: '2026-11-30T08:00:00.000Z',
  label: 'Accounting',
  failingSince: '2026-11-30T08:00:00.000Z',
  failures: 4,
  memberName: 'Ada Lovelace',
  reason: 'card declined',
  reportId: 3,
  severity: 'unsafe',
  description: 'The lens <is> cracked',
  reporterName: 'Rita',
  signUpId: 5,
  emailAddress: 'ada@lab.example',
};
const ctx = (language: 'en' | 'de') => ({
  language,
  name: 'Ada',
  spaceName: 'Vienna lab',
  timezone: 'Europe/Vienna',
  settingsUrl: 'https://lab.example/account',
});

describe('mail templates', () => {
  it.each(notificationKinds)('%s reads in English and in German, as text and as escaped HTML', (kind) => {
    const en = renderMail(kind, params, ctx('en'));
    const de = renderMail(kind, params, ctx('de'));
    expect(en.subject).not.toBe(de.subject);
    expect(en.text.startsWith('Hello Ada,\n\n')).toBe(true);
    expect(de.text.startsWith('Hallo Ada,\n\n')).toBe(true);
    expect(en.text).toContain('Choose which mails you receive here: https://lab.example/account');
    expect(de.text).toContain('Welche Mails du bekommst, stellst du hier ein: https://lab.example/account');
    for (const mail of [en, de]) {
      expect(mail.text).not.toMatch(/undefined|NaN|Invalid Date/);
      expect(mail.html).not.toContain('<CO2>');
      expect(mail.html).toContain('<html lang=');
    }
  });

  it('shows times in the space’s zone, in each language’s words', () => {
    expect(renderMail('bookingMade', params, ctx('en')).subject).toBe(
      'Booked: Laser <CO2>, Tue, 1 Dec 2026, 10:00',
    );
    expect(renderMail('bookingMade', params, ctx('de')).subject).toBe(
      'Gebucht: Laser <CO2>, Di., 1. Dez. 2026, 10:00',
    );
    expect(renderMail('bookingMade', params, ctx('en')).html).toContain('Laser &lt;CO2&gt;');
    expect(renderMail('packageEnding', params, ctx('de')).text).toContain(
      'dein Paket Monthly endet am 10. Dezember 2026.',
    );
  });

  it('writes German to a member whose language is German, else the space’s, else English', () => {
    expect(languageOf('de', 'en')).toBe('de');
    expect(languageOf('de-AT', null)).toBe('de');
    expect(languageOf(null, 'de')).toBe('de');
    expect(languageOf('en', 'de')).toBe('en');
    expect(languageOf(null, null)).toBe('en');
  });
});
