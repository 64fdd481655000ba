import { crc32 } from 'node:zlib';

/**
 * Photos of problem reports (docs/DECISIONS.md, "Problem reports"): JPEG or PNG only, known by
 * their first bytes (not by what the client says), stored without the metadata a phone writes
 * into them (where and when it was taken, the camera, its owner's name, thumbnails). Pure
 * functions over bytes: no decoder, no native code.
 */

export type PhotoType = 'image/jpeg' | 'image/png';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The image type by magic bytes, or null for anything else. */
export function photoType(bytes: Uint8Array): PhotoType | null {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length >= 8 && Buffer.from(bytes.subarray(0, 8)).equals(PNG_SIGNATURE)) return 'image/png';
  return null;
}

/** The bytes are not a complete image of their type (cut off, or not the format at all). */
export class DamagedPhotoError extends Error {
  override name = 'DamagedPhotoError';
}

/** The image without its metadata; throws DamagedPhotoError when its structure is broken. */
export function stripPhoto(bytes: Buffer, type: PhotoType): Buffer {
  return type === 'image/jpeg' ? stripJpeg(bytes) : stripPng(bytes);
}

// ---- JPEG (ITU T.81 markers; JFIF, Exif and XMP live in APPn segments) ----

const SOI = 0xd8;
const EOI = 0xd9;
const SOS = 0xda;
const COM = 0xfe;
const APP0 = 0xe0;
const APP2 = 0xe2;
const APP14 = 0xee;

/** Markers without a length (T.81 B.1.1.3): TEM, RST0-7 (SOI and EOI are handled apart). */
const standalone = (m: number) => m === 0x01 || (m >= 0xd0 && m <= 0xd7);

function startsWith(segment: Buffer, text: string): boolean {
  return segment.subarray(4, 4 + text.length).toString('latin1') === text;
}

/**
 * APPn segments kept because decoding needs them: JFIF (APP0, not its JFXX thumbnail), the ICC
 * colour profile (APP2) and Adobe's colour transform (APP14). Every other APPn (Exif, XMP,
 * maker notes, IPTC, ...) and every comment goes.
 */
function keepSegment(marker: number, segment: Buffer): boolean {
  if (marker === COM) return false;
  if (marker < APP0 || marker > 0xef) return true;
  if (marker === APP0) return startsWith(segment, 'JFIF\0');
  if (marker === APP2) return startsWith(segment, 'ICC_PROFILE\0');
  if (marker === APP14) return startsWith(segment, 'Adobe');
  return false;
}

/**
 * The Exif orientation (1-8) of an APP1 segment, else null. Phones store a photo as the sensor
 * saw it and say how to turn it: without this tag a portrait photo shows on its side.
 */
export function exifOrientation(segment: Buffer): number | null {
  if (!startsWith(segment, 'Exif\0\0')) return null;
  const tiff = segment.subarray(10);
  if (tiff.length < 8) return null;
  const order = tiff.toString('latin1', 0, 2);
  if (order !== 'II' && order !== 'MM') return null;
  const little = order === 'II';
  const u16 = (at: number) => (little ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const u32 = (at: number) => (little ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
  const ifd = u32(4);
  if (ifd + 2 > tiff.length) return null;
  const count = u16(ifd);
  for (let i = 0; i < count; i++) {
    const entry = ifd + 2 + i * 12;
    if (entry + 12 > tiff.length) return null;
    // Orientation: tag 0x0112, type SHORT (3), one value.
    if (u16(entry) === 0x0112 && u16(entry + 2) === 3) {
      const value = u16(entry + 8);
      return value >= 1 && value <= 8 ? value : null;
    }
  }
  return null;
}

/** An APP1 Exif segment holding only the orientation (big-endian TIFF, one IFD entry). */
function orientationSegment(orientation: number): Buffer {
  const tiff = Buffer.alloc(8 + 2 + 12 + 4);
  tiff.write('MM', 0, 'latin1');
  tiff.writeUInt16BE(42, 2);
  tiff.writeUInt32BE(8, 4);
  tiff.writeUInt16BE(1, 8);
  tiff.writeUInt16BE(0x0112, 10);
  tiff.writeUInt16BE(3, 12);
  tiff.writeUInt32BE(1, 14);
  tiff.writeUInt16BE(orientation, 18);
  tiff.writeUInt32BE(0, 22);
  const body = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]);
  const head = Buffer.from([0xff, 0xe1, 0, 0]);
  head.writeUInt16BE(body.length + 2, 2);
  return Buffer.concat([head, body]);
}

/**
 * The JPEG without APPn metadata and comments (see keepSegment), with only the Exif orientation
 * kept (so the photo stands the right way up) and nothing after the end-of-image marker (where
 * some phones append a second image or a video).
 */
export function stripJpeg(bytes: Buffer): Buffer {
  const damaged = (why: string) => new DamagedPhotoError(`not a complete JPEG image: ${why}`);
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== SOI) throw damaged('no start-of-image marker');
  const out: Buffer[] = [bytes.subarray(0, 2)];
  let orientation: number | null = null;
  let orientationAt = 1;
  let scans = 0;
  let at = 2;
  for (;;) {
    // Fill bytes (0xFF) may come before a marker.
    if (at >= bytes.length || bytes[at] !== 0xff) throw damaged(`no marker at byte ${at}`);
    while (at < bytes.length && bytes[at] === 0xff) at++;
    if (at >= bytes.length) throw damaged('cut off');
    const marker = bytes[at++];
    if (marker === EOI) {
      if (scans === 0) throw damaged('no image data');
      out.push(Buffer.from([0xff, EOI]));
      break;
    }
    if (standalone(marker)) {
      out.push(Buffer.from([0xff, marker]));
      continue;
    }
    if (marker === SOI || marker === 0x00) throw damaged(`unexpected marker at byte ${at - 1}`);
    if (at + 2 > bytes.length) throw damaged('cut off');
    const length = bytes.readUInt16BE(at);
    if (length < 2 || at + length > bytes.length) throw damaged('cut off');
    const segment = bytes.subarray(at - 2, at + length);
    at += length;
    if (marker === 0xe1 && orientation === null) orientation = exifOrientation(segment);
    if (keepSegment(marker, segment)) {
      out.push(segment);
      if (marker === APP0) orientationAt = out.length;
    }
    if (marker !== SOS) continue;
    scans++;
    // Entropy-coded data runs to the next marker that is neither stuffing (FF 00) nor a restart.
    const from = at;
    for (;;) {
      if (at + 1 >= bytes.length) throw damaged('cut off in image data');
      if (bytes[at] === 0xff && bytes[at + 1] !== 0x00 && !(bytes[at + 1] >= 0xd0 && bytes[at + 1] <= 0xd7))
        break;
      at++;
    }
    out.push(bytes.subarray(from, at));
  }
  if (orientation !== null && orientation !== 1)
    out.splice(orientationAt, 0, orientationSegment(orientation));
  return Buffer.concat(out);
}

// ---- PNG (ISO/IEC 15948 chunks) ----

/**
 * Chunks that draw the image: the critical ones, transparency, colour and gamma, pixel size,
 * and APNG's animation. Text (tEXt, zTXt, iTXt), time (tIME), Exif (eXIf) and every chunk not
 * named here (private chunks may hold anything) go.
 */
const keptPngChunks = new Set([
  'IHDR',
  'PLTE',
  'IDAT',
  'IEND',
  'tRNS',
  'cHRM',
  'gAMA',
  'iCCP',
  'sBIT',
  'sRGB',
  'cICP',
  'bKGD',
  'hIST',
  'pHYs',
  'sPLT',
  'acTL',
  'fcTL',
  'fdAT',
]);

/** The PNG with only the chunks of keptPngChunks, each checked (length, CRC), and nothing after IEND. */
export function stripPng(bytes: Buffer): Buffer {
  const damaged = (why: string) => new DamagedPhotoError(`not a complete PNG image: ${why}`);
  if (photoType(bytes) !== 'image/png') throw damaged('no PNG signature');
  const out: Buffer[] = [PNG_SIGNATURE];
  let at = 8;
  let first = true;
  let sawData = false;
  for (;;) {
    if (at + 12 > bytes.length) throw damaged('cut off');
    const length = bytes.readUInt32BE(at);
    const end = at + 12 + length;
    if (length > 0x7fffffff || end > bytes.length) throw damaged('cut off');
    const type = bytes.toString('latin1', at + 4, at + 8);
    if (!/^[A-Za-z]{4}$/.test(type)) throw damaged(`bad chunk type at byte ${at + 4}`);
    if (first && type !== 'IHDR') throw damaged('IHDR is not the first chunk');
    first = false;
    const crc = bytes.readUInt32BE(end - 4);
    if (crc32(bytes.subarray(at + 4, end - 4)) !== crc) throw damaged(`bad CRC of the ${type} chunk`);
    if (type === 'IDAT') sawData = true;
    if (keptPngChunks.has(type)) out.push(bytes.subarray(at, end));
    at = end;
    if (type === 'IEND') break;
  }
  if (!sawData) throw damaged('no image data');
  return Buffer.concat(out);
}
