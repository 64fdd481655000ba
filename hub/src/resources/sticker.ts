import { createRequire } from 'node:module';
import type * as resvg from '@resvg/resvg-js';
import type QRCodeModule from 'qrcode';

const require = createRequire(import.meta.url);
// The QR encoder and the SVG renderer (a native module) are loaded with the first sticker.
const qrcode = () => require('qrcode') as typeof QRCodeModule;
const Resvg = () => (require('@resvg/resvg-js') as typeof resvg).Resvg;

/** The machine page a sticker opens: `{public URL}/r/{id}?c={code}` (DESIGN 11). */
export function stickerUrl(base: string, resourceId: number, code: string): string {
  return `${base}/r/${resourceId}?c=${encodeURIComponent(code)}`;
}

const escapeXml = (text: string) => text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The QR code's dark modules as one SVG path, `size` units wide, starting at (x, y). */
function qrPath(text: string, x: number, y: number, size: number): string {
  const qr = qrcode().create(text, { errorCorrectionLevel: 'M' });
  const n = qr.modules.size;
  const cell = size / n;
  let d = '';
  for (let row = 0; row < n; row++) {
    for (let col = 0; col < n; col++) {
      if (qr.modules.get(row, col)) {
        d += `M${(x + col * cell).toFixed(2)} ${(y + row * cell).toFixed(2)}h${cell.toFixed(2)}v${cell.toFixed(2)}h-${cell.toFixed(2)}z`;
      }
    }
  }
  return d;
}

/** Cuts a name that would not fit on one line of the sticker. */
function fit(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

export type StickerLanguage = 'en' | 'de';

/** The sticker's words in each language (the web app's catalogs are for the browser only). */
const words: Record<StickerLanguage, { unlock: string; switchOn: string; code: string; onDisplay: string }> =
  {
    en: {
      unlock: 'Scan to unlock',
      switchOn: 'Scan to switch on',
      code: 'Code',
      onDisplay: 'on the display',
    },
    de: {
      unlock: 'Zum Öffnen scannen',
      switchOn: 'Zum Einschalten scannen',
      code: 'Code',
      onDisplay: 'auf dem Display',
    },
  };

/** The sticker's language: the one asked for, else the first of Accept-Language we have, else English. */
export function stickerLanguage(
  asked: string | undefined,
  acceptLanguage: string | undefined,
): StickerLanguage {
  if (asked === 'en' || asked === 'de') return asked;
  for (const part of (acceptLanguage ?? '').split(',')) {
    const base = part.split(';')[0].trim().toLowerCase().split('-')[0];
    if (base === 'en' || base === 'de') return base;
  }
  return 'en';
}

/** "on the display" for a code that changes (TOTP), in the sticker's language. */
export const onDisplay = (language: StickerLanguage) => words[language].onDisplay;

export interface StickerInput {
  name: string;
  controlType: string;
  url: string;
  code: string;
  language?: StickerLanguage;
}

/**
 * A printable sticker (60 x 80 mm): the resource's name, the QR code of its machine page, and
 * the code in letters for the member whose camera fails.
 */
export function stickerSvg({ name, controlType, url, code, language = 'en' }: StickerInput): string {
  const said = words[language];
  const action = controlType === 'door' ? said.unlock : said.switchOn;
  const title = fit(name, 22);
  const titleSize = [...title].length > 16 ? 34 : 44;
  return `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" xml:lang="${language}" width="60mm" height="80mm" viewBox="0 0 600 800" role="img" aria-label="${escapeXml(`${name}: ${action}`)}">
  <rect x="4" y="4" width="592" height="792" rx="28" fill="#fff" stroke="#111" stroke-width="8"/>
  <text x="300" y="92" font-family="DejaVu Sans, Arial, sans-serif" font-weight="bold" font-size="${titleSize}" text-anchor="middle" fill="#111">${escapeXml(title)}</text>
  <path d="${qrPath(url, 90, 145, 420)}" fill="#111"/>
  <text x="300" y="650" font-family="DejaVu Sans, Arial, sans-serif" font-weight="bold" font-size="38" text-anchor="middle" fill="#111">${action}</text>
  <text x="300" y="725" font-family="DejaVu Sans Mono, DejaVu Sans, monospace" font-size="30" text-anchor="middle" fill="#444">${said.code} ${escapeXml(code)}</text>
</svg>
`;
}

let fontFiles: string[] | undefined;
function fonts(): string[] {
  // Shipped with the hub, so the PNG has its text on a server without any fonts installed.
  fontFiles ??= ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf', 'DejaVuSansMono.ttf'].map((f) =>
    require.resolve(`dejavu-fonts-ttf/ttf/${f}`),
  );
  return fontFiles;
}

/** The same sticker as a PNG at 300 dpi. */
export function stickerPng(input: StickerInput): Buffer {
  const svg = stickerSvg(input);
  const png = new (Resvg())(svg, {
    fitTo: { mode: 'width', value: 709 }, // 60 mm at 300 dpi
    font: { fontFiles: fonts(), loadSystemFonts: false, defaultFontFamily: 'DejaVu Sans' },
    background: '#ffffff',
  }).render();
  return png.asPng();
}
