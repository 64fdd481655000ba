import { afterEach, describe, expect, it } from 'vitest';
import '../../web/src/i18n/admin-catalogs';
import { dateTime } from '../../web/src/format';
import { dayText, money, pickLanguage, setLanguage, t } from '../../web/src/i18n/i18n';

describe('the app’s languages', () => {
  afterEach(() => setLanguage('en'));

  it('takes the member’s language, else the first of the browser’s it has, else English', () => {
    expect(pickLanguage('de', ['en-GB'])).toBe('de');
    expect(pickLanguage('de-AT', [])).toBe('de');
    expect(pickLanguage(null, ['fr-FR', 'de-CH', 'en'])).toBe('de');
    expect(pickLanguage('', ['en-US'])).toBe('en');
    expect(pickLanguage('fr', ['it'])).toBe('en');
  });

  it('writes plurals, money and days as each language does', () => {
    expect(t('kiosk.membersIn', { count: 1 })).toBe('1 member is in');
    expect(t('kiosk.membersIn', { count: 3 })).toBe('3 members are in');
    expect(money('23.5', 'EUR')).toBe('€23.50');
    expect(dayText('2026-12-24')).toBe('24 Dec 2026');
    setLanguage('de');
    expect(t('kiosk.membersIn', { count: 1 })).toBe('1 Mitglied ist da');
    expect(t('kiosk.membersIn', { count: 3 })).toBe('3 Mitglieder sind da');
    expect(money('23.5', 'EUR')).toBe('23,50\u00a0€');
    expect(dayText('2026-12-24')).toBe('24. Dez. 2026');
    expect(t('verdict.noPackage', { context: 'door' })).toBe('Keines deiner Pakete erlaubt diese Tür.');
  });

  it('writes a moment in the space’s zone, whatever zone the phone is in', () => {
    // 17:30 UTC is 18:30 in Berlin and 12:30 in New York.
    expect(dateTime('2026-12-24T17:30:00Z', 'Europe/Berlin')).toBe('24 Dec 2026, 18:30');
    expect(dateTime('2026-12-24T17:30:00Z', 'America/New_York')).toBe('24 Dec 2026, 12:30');
    setLanguage('de');
    expect(dateTime('2026-12-24T17:30:00Z', 'Europe/Berlin')).toBe('24.12.2026, 18:30');
  });

  it('lowercases a label inside an English sentence and leaves German nouns alone', () => {
    expect(t('admin.billing_actions.search', { what: 'Member to charge' })).toBe('Search member to charge');
    setLanguage('de');
    expect(t('admin.billing_actions.search', { what: 'Zu belastendes Mitglied' })).toBe(
      'Zu belastendes Mitglied suchen',
    );
  });
});
