import { describe, expect, it } from 'vitest';
import { stickerLanguage, stickerSvg } from '../../hub/src/resources/sticker.js';

describe('the QR sticker in the member’s language', () => {
  it('takes the language asked for, else the first of Accept-Language the hub has, else English', () => {
    expect(stickerLanguage('de', 'en-GB')).toBe('de');
    expect(stickerLanguage(undefined, 'fr-FR,de-AT;q=0.8,en;q=0.5')).toBe('de');
    expect(stickerLanguage(undefined, 'en-US,de;q=0.5')).toBe('en');
    expect(stickerLanguage(undefined, 'fr, it')).toBe('en');
    expect(stickerLanguage(undefined, undefined)).toBe('en');
  });

  it('says what to do in German for a door and a machine', () => {
    const input = {
      name: 'Haustür',
      controlType: 'door',
      url: 'https://lab.example/r/1?c=K7MX',
      code: 'K7MX',
    };
    const door = stickerSvg({ ...input, language: 'de' });
    expect(door).toContain('Zum Öffnen scannen');
    expect(door).toContain('xml:lang="de"');
    expect(stickerSvg({ ...input, controlType: 'machine', language: 'de' })).toContain(
      'Zum Einschalten scannen',
    );
    expect(stickerSvg(input)).toContain('Scan to unlock');
  });
});
