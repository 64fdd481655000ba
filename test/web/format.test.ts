import { describe, expect, it } from 'vitest';
import { deviceName } from '../../web/src/format';

describe('deviceName: the account page names each sign-in by its device', () => {
  it('names the browser and the system of common phones and desktops', () => {
    const cases: [string, string][] = [
      [
        'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
        'Chrome on Android',
      ],
      [
        'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
        'Safari on iPhone',
      ],
      [
        'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1',
        'Chrome on iPhone',
      ],
      [
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
        'Firefox on Windows',
      ],
      [
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
        'Edge on Windows',
      ],
      [
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
        'Safari on macOS',
      ],
      [
        'Mozilla/5.0 (Linux; Android 14; SM-S921B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36',
        'Samsung Internet on Android',
      ],
      [
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36',
        'Chrome on Linux',
      ],
    ];
    for (const [userAgent, name] of cases) expect(deviceName(userAgent), userAgent).toBe(name);
  });

  it('shows an unknown client by its own text, shortened, and a missing one as a browser', () => {
    expect(deviceName('MakerspaceApp/2.1')).toBe('MakerspaceApp/2.1');
    const long = `ToolCrib/1.0 ${'x'.repeat(100)}`;
    expect(deviceName(long)).toHaveLength(60);
    expect(deviceName(long).endsWith('…')).toBe(true);
    expect(deviceName(null)).toBe('A browser');
    expect(deviceName('  ')).toBe('A browser');
  });
});
