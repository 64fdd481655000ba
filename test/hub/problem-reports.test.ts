import { crc32 } from 'node:zlib';
import { PNG } from 'pngjs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { exifOrientation, stripJpeg, stripPng } from '../../hub/src/problems/photos.js';
import { problemReportRecipients } from '../../hub/src/problems/recipients.js';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';
import { plainMember } from './spaces-support.js';
import { fastTuning, type Receiver, sleep, startReceiver, waitFor } from './webhooks-helpers.js';

// ---- image fixtures: a PNG with text and time chunks, a JPEG with Exif, XMP and a comment ----

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])));
  return Buffer.concat([head, data, crc]);
}

/** A 4x4 red PNG carrying a tEXt (the author), a tIME and an eXIf chunk, and bytes after IEND. */
function pngWithMetadata(): Buffer {
  const png = new PNG({ width: 4, height: 4 });
  png.data.fill(0);
  for (let i = 0; i < 16; i++) {
    png.data[i * 4] = 255;
    png.data[i * 4 + 3] = 255;
  }
  const plain = PNG.sync.write(png);
  const ihdrEnd = 8 + 12 + 13;
  return Buffer.concat([
    plain.subarray(0, ihdrEnd),
    pngChunk('tEXt', Buffer.from('Author\0Maya Maker at home', 'latin1')),
    pngChunk('tIME', Buffer.from([0x07, 0xea, 11, 27, 10, 0, 0])),
    pngChunk('eXIf', Buffer.from('MM\0*GPS 48.2N', 'latin1')),
    plain.subarray(ihdrEnd),
    Buffer.from('TRAILER-SECRET'),
  ]);
}

function jpegSegment(marker: number, body: Buffer): Buffer {
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(body.length + 2, 2);
  return Buffer.concat([head, body]);
}

/** Exif (little-endian TIFF) with an ImageDescription naming a person and Orientation 6 (turned right). */
function exifSegment(): Buffer {
  const text = Buffer.from('Maya Maker at home\0', 'latin1');
  const tiff = Buffer.alloc(8 + 2 + 24 + 4);
  tiff.write('II', 0, 'latin1');
  tiff.writeUInt16LE(42, 2);
  tiff.writeUInt32LE(8, 4);
  tiff.writeUInt16LE(2, 8);
  tiff.writeUInt16LE(0x010e, 10);
  tiff.writeUInt16LE(2, 12);
  tiff.writeUInt32LE(text.length, 14);
  tiff.writeUInt32LE(tiff.length, 18);
  tiff.writeUInt16LE(0x0112, 22);
  tiff.writeUInt16LE(3, 24);
  tiff.writeUInt32LE(1, 26);
  tiff.writeUInt16LE(6, 30);
  tiff.writeUInt32LE(0, 34);
  return jpegSegment(0xe1, Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff, text]));
}

const entropy = Buffer.from([0x12, 0xff, 0x00, 0x34, 0xff, 0xd0, 0x56, 0x78]);

/** A JPEG's structure (its image data is not decodable, which the hub never needs). */
function jpegWithMetadata(): Buffer {
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    jpegSegment(0xe0, Buffer.from('JFIF\0\x01\x01\0\0\x01\0\x01\0\0', 'latin1')),
    exifSegment(),
    jpegSegment(
      0xe1,
      Buffer.from('http://ns.adobe.com/xap/1.0/\0<x:xmpmeta>GPSLatitude 48.2</x:xmpmeta>', 'latin1'),
    ),
    jpegSegment(0xfe, Buffer.from('secret comment', 'latin1')),
    jpegSegment(0xdb, Buffer.alloc(65, 1)),
    jpegSegment(0xc0, Buffer.from([8, 0, 4, 0, 4, 1, 1, 0x11, 0])),
    jpegSegment(0xda, Buffer.from([1, 1, 0, 0, 0x3f, 0])),
    entropy,
    Buffer.from([0xff, 0xd9]),
    Buffer.from('TRAILER-SECRET'),
  ]);
}

const contains = (haystack: Buffer, text: string) => haystack.includes(Buffer.from(text, 'latin1'));

describe('photo metadata stripping', () => {
  it('a JPEG keeps its image data and orientation, and loses Exif text, XMP, comments and what follows its end', () => {
    const stripped = stripJpeg(jpegWithMetadata());
    for (const secret of ['Maya Maker', 'GPSLatitude', 'secret comment', 'TRAILER', 'xmpmeta'])
      expect(contains(stripped, secret), secret).toBe(false);
    expect(stripped.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(stripped.subarray(-2)).toEqual(Buffer.from([0xff, 0xd9]));
    expect(stripped.includes(entropy)).toBe(true);
    expect(contains(stripped, 'JFIF\0')).toBe(true);
    // The only APP1 left says how to turn the photo, nothing else.
    const app1 = stripped.indexOf(Buffer.from([0xff, 0xe1]));
    const length = stripped.readUInt16BE(app1 + 2);
    expect(exifOrientation(stripped.subarray(app1, app1 + 2 + length))).toBe(6);
    expect(stripped.indexOf(Buffer.from([0xff, 0xe1]), app1 + 2)).toBe(-1);
  });

  it('a PNG keeps its pixels and loses text, time and Exif chunks and what follows IEND', () => {
    const stripped = stripPng(pngWithMetadata());
    for (const secret of ['tEXt', 'tIME', 'eXIf', 'Maya Maker', 'TRAILER'])
      expect(contains(stripped, secret), secret).toBe(false);
    const decoded = PNG.sync.read(stripped);
    expect([decoded.width, decoded.height, decoded.data[0], decoded.data[1]]).toEqual([4, 4, 255, 0]);
  });

  it('a cut-off image is refused', () => {
    const jpeg = jpegWithMetadata();
    expect(() => stripJpeg(jpeg.subarray(0, jpeg.indexOf(entropy) + 3))).toThrow(/not a complete JPEG/);
    const png = pngWithMetadata();
    expect(() => stripPng(png.subarray(0, 60))).toThrow(/not a complete PNG/);
  });
});

describeEachDialect('problem reports', (dialect) => {
  let t: TestHub;
  let owner: string;
  let laserType: number;
  let printerType: number;
  let laser: { id: number };
  let printer: { id: number };
  let hidden: { id: number };
  let mia: { memberId: number; token: string };
  let max: { memberId: number; token: string };
  let tina: { memberId: number; token: string };
  let stranger: { token: string; memberId: number };
  const teardown: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    t = await startTestHub(dialect, { settings: { webhookAllowInsecure: true, webhookTuning: fastTuning } });
    owner = t.owner.token;
    laserType = (await call(owner, 'POST', '/resource-types', { name: 'Laser cutters' })).json().id;
    printerType = (await call(owner, 'POST', '/resource-types', { name: '3D printers' })).json().id;
    laser = await newResource('Laser cutter', laserType);
    printer = await newResource('Prusa', printerType);
    hidden = await newResource('Staff saw', null, { visibleForMembers: false });
    mia = await plainMember(t, 'Mia');
    max = await plainMember(t, 'Max');
    tina = await plainMember(t, 'Tina');
    const other = await t.newAccount('Elsewhere', 'elsewhere@test.example');
    stranger = { token: other.token, memberId: other.memberId };
  });
  afterEach(async () => {
    for (const close of teardown.splice(0)) await close();
  });
  afterAll(async () => t?.close());

  function call(
    token: string,
    method: string,
    url: string,
    payload?: object,
    headers?: Record<string, string>,
  ) {
    return t.call(token, {
      method: method as 'GET',
      url: `/api/v1${url}`,
      ...(payload !== undefined ? { payload: payload as never } : {}),
      ...(headers ? { headers } : {}),
    });
  }
  async function newResource(name: string, type: number | null, extra: object = {}) {
    const res = await call(owner, 'POST', '/resources', {
      space: t.owner.spaceId,
      name,
      controlType: 'machine',
      ...(type ? { type } : {}),
      ...extra,
    });
    expect(res.statusCode).toBe(201);
    return res.json() as { id: number };
  }
  const resource = async (id: number) => (await call(owner, 'GET', `/resources/${id}`)).json();
  const report = (token: string, resourceId: number, body: object) =>
    call(token, 'POST', `/resources/${resourceId}/problem-reports`, body);
  const resolve = (token: string, id: number, note = 'Fixed it') =>
    call(token, 'POST', `/problem-reports/${id}/resolve`, { note });
  const logs = async (resourceId: number) =>
    (await call(owner, 'GET', `/resource-logs?resource=${resourceId}&limit=100`))
      .json()
      .filter((l: any) => l.type === 'resourceDisabled' || l.type === 'resourceEnabled');
  const putPhoto = (token: string, id: number, bytes: Buffer, type = 'image/png') =>
    call(token, 'PUT', `/problem-reports/${id}/photo`, bytes as never, { 'content-type': type });
  async function resetLaser() {
    const r = await resource(laser.id);
    if (r.state === 'active') return;
    const res = await call(owner, 'PUT', `/resources/${laser.id}`, {
      state: 'active',
      lockReason: null,
      lockVersion: r.lockVersion,
    });
    expect(res.statusCode).toBe(200);
  }

  it('refuses a report without a description, with a bad severity or unknown fields, and changes nothing', async () => {
    const before = Number((await call(owner, 'GET', '/problem-reports')).headers['x-total-count']);
    const cases = [
      [{ severity: 'unsafe' }, 'description'],
      [{ description: '   ', severity: 'unsafe' }, 'description'],
      [{ description: 'Smoke', severity: 'urgent' }, 'severity'],
      [{ description: 'Smoke' }, 'severity'],
      [{ description: 'Smoke', severity: 'info', photo: 'x' }, 'photo'],
    ] as const;
    for (const [body, field] of cases) {
      const res = await report(mia.token, laser.id, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().message).toContain(field);
    }
    expect(Number((await call(owner, 'GET', '/problem-reports')).headers['x-total-count'])).toBe(before);
    expect((await resource(laser.id)).state).toBe('active');
  });

  it('a member of another account, or one who cannot see the resource, gets 404', async () => {
    const body = { description: 'Smoke from the tube', severity: 'unsafe' };
    expect((await report(stranger.token, laser.id, body)).statusCode).toBe(404);
    expect((await report(mia.token, hidden.id, body)).statusCode).toBe(404);
    expect((await report(mia.token, 999_999, body)).statusCode).toBe(404);
    expect((await resource(laser.id)).state).toBe('active');
    expect((await resource(hidden.id)).state).toBe('active');
  });

  it('an unsafe report locks the machine at once, logs it, and the next member is told why', async () => {
    const res = await report(mia.token, laser.id, {
      description: 'The lid switch is broken: it fires with the lid open',
      severity: 'unsafe',
    });
    expect(res.statusCode).toBe(201);
    const made = res.json();
    expect(made).toMatchObject({
      resource: laser.id,
      member: mia.memberId,
      severity: 'unsafe',
      state: 'open',
      lockedResource: true,
      photo: null,
      resolvedAt: null,
      _embedded: {
        resource: { id: laser.id, name: 'Laser cutter', type: laserType },
        member: { firstName: 'Mia' },
      },
    });
    const locked = await resource(laser.id);
    expect(locked.state).toBe('locked');
    expect(locked.lockReason).toContain(`problem report #${made.id}`);
    expect(locked.lockReason).toContain('lid switch is broken');
    const [log] = await logs(laser.id);
    expect(log).toMatchObject({
      type: 'resourceDisabled',
      member: mia.memberId,
      metadata: { problemReport: made.id },
    });
    expect(log.notes).toContain(`#${made.id}`);

    // Max, next at the machine: the machine page and switch-on say it is out of use, and why.
    const check = (await call(max.token, 'GET', `/resources/${laser.id}/access-check`)).json();
    expect(check).toMatchObject({ allowed: false, reason: 'inactive' });
    expect(check.resource.lockReason).toContain(`problem report #${made.id}`);
    const code = locked.switchOnCode;
    const switchOn = await call(max.token, 'POST', `/resources/${laser.id}/switch-on`, { code });
    expect(switchOn.statusCode).toBe(403);
    expect(switchOn.json().data.reason).toBe('inactive');
    expect(switchOn.json().message).toContain(`problem report #${made.id}`);
    // Admins do not pass a locked machine either.
    expect((await call(owner, 'GET', `/resources/${laser.id}/access-check`)).json().reason).toBe('inactive');

    // An admin resolves it: the laser is back in use, with a log naming the report.
    const done = await resolve(owner, made.id, 'Replaced the lid switch');
    expect(done.statusCode).toBe(200);
    expect(done.json()).toMatchObject({
      state: 'resolved',
      resolutionNote: 'Replaced the lid switch',
      resolvedBy: t.owner.memberId,
      unlockedResource: true,
    });
    expect(done.json().resolvedAt).toEqual(expect.any(String));
    const unlocked = await resource(laser.id);
    expect([unlocked.state, unlocked.lockReason]).toEqual(['active', null]);
    const enabled = (await logs(laser.id)).find((l: any) => l.type === 'resourceEnabled');
    expect(enabled).toMatchObject({ member: t.owner.memberId, metadata: { problemReport: made.id } });
    expect(enabled.notes).toContain('Replaced the lid switch');
    expect((await call(max.token, 'GET', `/resources/${laser.id}/access-check`)).json().reason).not.toBe(
      'inactive',
    );
    // Resolved once only.
    const again = await resolve(owner, made.id);
    expect(again.statusCode).toBe(409);
    expect(again.json().data).toEqual({ alreadyResolved: true });
  });

  it('an info report only tells: the machine stays in use', async () => {
    const res = await report(max.token, printer.id, { description: 'Bed is a bit dirty', severity: 'info' });
    expect(res.statusCode).toBe(201);
    expect(res.json().lockedResource).toBe(false);
    expect((await resource(printer.id)).state).toBe('active');
    expect(await logs(printer.id)).toEqual([]);
  });

  it('members see their own reports; admins all, with state and resource filters; resolving needs an admin', async () => {
    const mine = await report(mia.token, printer.id, { description: 'Nozzle clogged', severity: 'info' });
    const id = mine.json().id;
    const miaList = (await call(mia.token, 'GET', '/problem-reports')).json();
    expect(miaList.length).toBeGreaterThan(0);
    expect(miaList.every((r: any) => r.member === mia.memberId)).toBe(true);
    expect((await call(max.token, 'GET', `/problem-reports/${id}`)).statusCode).toBe(404);
    expect((await call(stranger.token, 'GET', `/problem-reports/${id}`)).statusCode).toBe(404);
    expect((await call(stranger.token, 'GET', '/problem-reports')).json()).toEqual([]);
    expect((await call(mia.token, 'GET', `/problem-reports/${id}`)).json().description).toBe(
      'Nozzle clogged',
    );

    const open = (await call(owner, 'GET', `/problem-reports?state=open&resource=${printer.id}`)).json();
    expect(open.map((r: any) => r.id)).toContain(id);
    expect(open.every((r: any) => r.state === 'open' && r.resource === printer.id)).toBe(true);
    const resolvedLaser = (
      await call(owner, 'GET', `/problem-reports?state=resolved&resource=${laser.id}`)
    ).json();
    expect(resolvedLaser.length).toBeGreaterThan(0);
    expect(resolvedLaser.every((r: any) => r.state === 'resolved' && r.resource === laser.id)).toBe(true);
    expect((await call(owner, 'GET', '/problem-reports?state=closed')).statusCode).toBe(400);

    // The reporter may not resolve; a stranger does not see it; a note is needed.
    const byMember = await resolve(mia.token, id);
    expect(byMember.statusCode).toBe(403);
    expect(byMember.json().data).toEqual({ reason: 'notMaintainer' });
    expect((await resolve(stranger.token, id)).statusCode).toBe(404);
    expect((await call(owner, 'POST', `/problem-reports/${id}/resolve`, {})).statusCode).toBe(400);
    expect((await call(owner, 'POST', `/problem-reports/${id}/resolve`, { note: ' ' })).statusCode).toBe(400);
    expect((await call(owner, 'GET', `/problem-reports/${id}`)).json().state).toBe('open');
  });

  it('resolving unlocks only a lock the report made: an admin’s lock stays', async () => {
    await resetLaser();
    const r = await resource(laser.id);
    expect(
      (
        await call(owner, 'PUT', `/resources/${laser.id}`, {
          state: 'locked',
          lockReason: 'Lens being replaced until Friday',
          lockVersion: r.lockVersion,
        })
      ).statusCode,
    ).toBe(200);
    const made = (
      await report(mia.token, laser.id, { description: 'Mirror cracked', severity: 'unsafe' })
    ).json();
    expect(made.lockedResource).toBe(false);
    expect((await resource(laser.id)).lockReason).toBe('Lens being replaced until Friday');
    expect((await resolve(owner, made.id)).json().unlockedResource).toBe(false);
    expect(await resource(laser.id)).toMatchObject({
      state: 'locked',
      lockReason: 'Lens being replaced until Friday',
    });
  });

  it('a report whose lock an admin replaced does not unlock the machine', async () => {
    await resetLaser();
    const made = (await report(mia.token, laser.id, { description: 'Fan dead', severity: 'unsafe' })).json();
    const r = await resource(laser.id);
    expect(r.state).toBe('locked');
    await call(owner, 'PUT', `/resources/${laser.id}`, {
      lockReason: 'Waiting for the service technician',
      lockVersion: r.lockVersion,
    });
    expect((await resolve(owner, made.id)).json().unlockedResource).toBe(false);
    expect(await resource(laser.id)).toMatchObject({
      state: 'locked',
      lockReason: 'Waiting for the service technician',
    });
  });

  it('with two open unsafe reports the machine stays locked until both are resolved', async () => {
    await resetLaser();
    const first = (
      await report(mia.token, laser.id, { description: 'Sparks at the tube', severity: 'unsafe' })
    ).json();
    const second = (
      await report(max.token, laser.id, { description: 'Exhaust not pulling', severity: 'unsafe' })
    ).json();
    expect([first.lockedResource, second.lockedResource]).toEqual([true, false]);
    const disabled = (await logs(laser.id)).filter((l: any) => l.type === 'resourceDisabled');
    expect(disabled[0].metadata).toEqual({ problemReport: first.id });

    expect((await resolve(owner, first.id)).json().unlockedResource).toBe(false);
    const still = await resource(laser.id);
    expect(still.state).toBe('locked');
    expect(still.lockReason).toContain(`problem report #${second.id}`);
    expect((await call(owner, 'GET', `/problem-reports/${second.id}`)).json().lockedResource).toBe(true);

    expect((await resolve(owner, second.id)).json().unlockedResource).toBe(true);
    expect((await resource(laser.id)).state).toBe('active');
  });

  it('reports made at the same moment: both are stored, one holds the lock, and resolving one while another arrives keeps the machine locked', async () => {
    await resetLaser();
    const [a, b] = await Promise.all([
      report(mia.token, laser.id, { description: 'Smoke', severity: 'unsafe' }),
      report(max.token, laser.id, { description: 'Smoke too', severity: 'unsafe' }),
    ]);
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect([a.json().lockedResource, b.json().lockedResource].sort()).toEqual([false, true]);
    const [holder, other] = a.json().lockedResource ? [a.json(), b.json()] : [b.json(), a.json()];
    const [resolved, third] = await Promise.all([
      resolve(owner, holder.id),
      report(mia.token, laser.id, { description: 'Still smoking', severity: 'unsafe' }),
    ]);
    expect([resolved.statusCode, third.statusCode]).toEqual([200, 201]);
    expect((await resource(laser.id)).state).toBe('locked');
    expect((await resolve(owner, other.id)).statusCode).toBe(200);
    expect((await resource(laser.id)).state).toBe('locked');
    expect((await resolve(owner, third.json().id)).json().unlockedResource).toBe(true);
    expect((await resource(laser.id)).state).toBe('active');
  });

  it('the bridge hears it: its config loses the offline keys while the machine is out of use, and card taps say why', async () => {
    const saw = await newResource('Band saw', null);
    expect((await call(owner, 'PUT', `/resources/${saw.id}/bridge`, {})).statusCode).toBe(200);
    const apiKey = (await call(owner, 'GET', `/resources/${saw.id}/bridge/api-key`)).json().apiKey as string;
    const pkg = (await call(owner, 'POST', '/packages', { name: 'Full membership' })).json().id;
    await call(owner, 'POST', `/packages/${pkg}/permissions`, { type: 'everything' });
    await call(owner, 'POST', `/members/${mia.memberId}/packages`, { package: pkg });
    await call(owner, 'PUT', `/members/${mia.memberId}/key`, { type: 'em4102', token: '5A5A000001' });
    await t.hub.accessChanges.settled();
    const card = { type: 'em4102', token: '5A5A000001' };
    const beat = async (configVersion: number) =>
      (await call(apiKey, 'POST', '/bridge/heartbeat', { configVersion })).json().config;
    const tap = async () => (await call(apiKey, 'POST', '/bridge/access', { keys: [card] })).json();
    const before = await beat(0);
    expect(before.offlineKeys).toContainEqual(card);
    expect(await tap()).toMatchObject({ type: 'allowed' });

    const made = (
      await report(max.token, saw.id, { description: 'Blade guard cracked', severity: 'unsafe' })
    ).json();
    const locked = await beat(before.configVersion);
    expect(locked.configVersion).toBeGreaterThan(before.configVersion);
    expect(locked.offlineKeys).toEqual([]);
    const refused = await tap();
    expect(refused).toMatchObject({ type: 'denied', reason: 'inactive' });
    expect(JSON.stringify(refused)).toContain(`problem report #${made.id}`);

    await resolve(owner, made.id, 'New guard fitted');
    const unlocked = await beat(locked.configVersion);
    expect(unlocked.offlineKeys).toContainEqual(card);
    expect(await tap()).toMatchObject({ type: 'allowed' });
  });

  it('admins make maintainers of a resource type, who see every report and resolve those of their type', async () => {
    const path = `/resource-types/${laserType}/maintainers`;
    expect((await call(mia.token, 'POST', path, { member: tina.memberId })).statusCode).toBe(403);
    const made = await call(owner, 'POST', path, { member: tina.memberId });
    expect(made.statusCode).toBe(201);
    expect(made.json()).toMatchObject({
      resourceType: laserType,
      member: tina.memberId,
      _embedded: { member: { firstName: 'Tina' } },
    });
    expect((await call(owner, 'POST', path, { member: tina.memberId })).statusCode).toBe(409);
    const foreign = await call(owner, 'POST', path, { member: stranger.memberId });
    expect(foreign.statusCode).toBe(422);
    expect(foreign.json().data).toEqual({ unknownMember: true });
    expect((await call(owner, 'POST', path, { member: tina.memberId, extra: 1 })).statusCode).toBe(400);
    expect((await call(stranger.token, 'GET', path)).statusCode).toBe(404);
    expect((await call(mia.token, 'GET', path)).json().map((m: any) => m.member)).toEqual([tina.memberId]);

    await resetLaser();
    const laserReport = (
      await report(mia.token, laser.id, { description: 'Beam misaligned', severity: 'unsafe' })
    ).json();
    const printerReport = (
      await report(mia.token, printer.id, { description: 'Hot end loose', severity: 'unsafe' })
    ).json();
    // Tina sees every report of the account, Mia's too.
    const seen = (await call(tina.token, 'GET', '/problem-reports?state=open')).json().map((r: any) => r.id);
    expect(seen).toEqual(expect.arrayContaining([laserReport.id, printerReport.id]));
    expect((await call(tina.token, 'GET', `/problem-reports/${laserReport.id}`)).statusCode).toBe(200);
    // She resolves the laser's report, not the printer's.
    const other = await resolve(tina.token, printerReport.id);
    expect(other.statusCode).toBe(403);
    expect(other.json().data).toEqual({ reason: 'notMaintainer' });
    const done = await resolve(tina.token, laserReport.id, 'Realigned the mirrors');
    expect(done.statusCode).toBe(200);
    expect(done.json()).toMatchObject({ resolvedBy: tina.memberId, unlockedResource: true });
    expect((await resource(laser.id)).state).toBe('active');

    // Recipients of a new report: the type's maintainers; the admins for a type without any.
    expect(await problemReportRecipients(t.hub.ctx.db, laserReport)).toEqual([
      { memberId: tina.memberId, emailAddress: 'tina@test.example' },
    ]);
    expect(await problemReportRecipients(t.hub.ctx.db, printerReport)).toEqual([
      { memberId: t.owner.memberId, emailAddress: 'owner@test.example' },
    ]);

    // Removed, she is a plain member again.
    expect((await call(mia.token, 'DELETE', `${path}/${tina.memberId}`)).statusCode).toBe(403);
    expect((await call(owner, 'DELETE', `${path}/${tina.memberId}`)).statusCode).toBe(204);
    expect((await call(owner, 'DELETE', `${path}/${tina.memberId}`)).statusCode).toBe(404);
    expect((await call(tina.token, 'GET', '/problem-reports')).json()).toEqual([]);
    expect((await resolve(tina.token, printerReport.id)).statusCode).toBe(404);
    expect(await problemReportRecipients(t.hub.ctx.db, laserReport)).toEqual([
      { memberId: t.owner.memberId, emailAddress: 'owner@test.example' },
    ]);
    await resolve(owner, printerReport.id);
  });

  it('a photo is stored without its metadata and shown only to those who see the report', async () => {
    const made = (
      await report(mia.token, printer.id, { description: 'Cracked fan shroud', severity: 'info' })
    ).json();
    const png = await putPhoto(mia.token, made.id, pngWithMetadata());
    expect(png.statusCode).toBe(200);
    expect(png.json().photo).toEqual({ contentType: 'image/png', bytes: expect.any(Number) });
    const got = await call(mia.token, 'GET', `/problem-reports/${made.id}/photo`);
    expect(got.statusCode).toBe(200);
    expect(got.headers['content-type']).toBe('image/png');
    expect(got.rawPayload.length).toBe(png.json().photo.bytes);
    expect(contains(got.rawPayload, 'Maya Maker')).toBe(false);
    expect(PNG.sync.read(got.rawPayload).width).toBe(4);
    expect((await call(owner, 'GET', `/problem-reports/${made.id}/photo`)).statusCode).toBe(200);
    expect((await call(max.token, 'GET', `/problem-reports/${made.id}/photo`)).statusCode).toBe(404);
    expect((await call(stranger.token, 'GET', `/problem-reports/${made.id}/photo`)).statusCode).toBe(404);
    expect((await putPhoto(max.token, made.id, pngWithMetadata())).statusCode).toBe(404);
    expect((await putPhoto(stranger.token, made.id, pngWithMetadata())).statusCode).toBe(404);

    // A JPEG replaces it (the type is read from its bytes, whatever the header says).
    const jpeg = await putPhoto(mia.token, made.id, jpegWithMetadata(), 'application/octet-stream');
    expect(jpeg.statusCode).toBe(200);
    expect(jpeg.json().photo.contentType).toBe('image/jpeg');
    const jpegBack = await call(owner, 'GET', `/problem-reports/${made.id}/photo`);
    expect(jpegBack.headers['content-type']).toBe('image/jpeg');
    for (const secret of ['Maya Maker', 'GPSLatitude', 'secret comment', 'TRAILER'])
      expect(contains(jpegBack.rawPayload, secret)).toBe(false);

    // Refusals change nothing.
    const gif = await putPhoto(
      mia.token,
      made.id,
      Buffer.from('GIF89a\x01\0\x01\0\0\0\0;', 'latin1'),
      'image/gif',
    );
    expect(gif.statusCode).toBe(415);
    expect(gif.json().data.field).toBe('photo');
    const text = await putPhoto(mia.token, made.id, Buffer.from('hello'), 'text/plain');
    expect(text.statusCode).toBe(415);
    const json = await call(mia.token, 'PUT', `/problem-reports/${made.id}/photo`, { photo: 'x' });
    expect(json.statusCode).toBe(415);
    const multipart = await putPhoto(
      mia.token,
      made.id,
      Buffer.from('--x\r\n'),
      'multipart/form-data; boundary=x',
    );
    expect(multipart.statusCode).toBe(415);
    expect(multipart.json().message).toContain('not a multipart form');
    const big = Buffer.concat([pngWithMetadata(), Buffer.alloc(5 * 1024 * 1024)]);
    expect((await putPhoto(mia.token, made.id, big)).statusCode).toBe(413);
    const cut = jpegWithMetadata().subarray(0, 120);
    const damaged = await putPhoto(mia.token, made.id, cut, 'image/jpeg');
    expect(damaged.statusCode).toBe(422);
    expect(damaged.json().message).toContain('not a complete JPEG');
    expect((await call(owner, 'GET', `/problem-reports/${made.id}`)).json().photo.contentType).toBe(
      'image/jpeg',
    );

    await resolve(owner, made.id);
    const late = await putPhoto(mia.token, made.id, pngWithMetadata());
    expect(late.statusCode).toBe(409);
    const bare = (await report(mia.token, printer.id, { description: 'No photo', severity: 'info' })).json();
    expect((await call(mia.token, 'GET', `/problem-reports/${bare.id}/photo`)).statusCode).toBe(404);
    await resolve(owner, bare.id);
  });

  it('sends problemReport_created and problemReport_resolved to webhooks of the problemReport category', async () => {
    const receiver: Receiver = await startReceiver();
    teardown.push(() => receiver.close());
    const hook = await call(owner, 'POST', '/webhooks', { url: receiver.url, categories: ['problemReport'] });
    expect(hook.statusCode).toBe(201);
    teardown.push(async () => {
      await call(owner, 'DELETE', `/webhooks/${hook.json().id}`);
    });
    await resetLaser();
    const made = (
      await report(max.token, laser.id, { description: 'Smells of burning', severity: 'unsafe' })
    ).json();
    await resolve(owner, made.id, 'Cleaned the lens');
    await waitFor('two events', () => receiver.received.length >= 2);
    await sleep(300);
    const events = receiver.received.map((r) => r.json);
    expect(events.map((e) => e.type)).toEqual(['problemReport_created', 'problemReport_resolved']);
    expect(Object.keys(events[0].details).sort()).toEqual(['problemReport', 'resource']);
    expect(events[0].details.problemReport).toMatchObject({
      id: made.id,
      state: 'open',
      lockedResource: true,
    });
    expect(events[0].details.resource).toMatchObject({ id: laser.id, state: 'locked' });
    expect(events[0].details.resource.switchOnCode).toBeUndefined();
    expect(events[1].details.problemReport).toMatchObject({
      id: made.id,
      state: 'resolved',
      resolutionNote: 'Cleaned the lens',
      unlockedResource: true,
    });
    expect(events[1].details.resource).toMatchObject({ id: laser.id, state: 'active' });
  });
});
