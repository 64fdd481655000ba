import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitEvent } from '../../hub/src/db/outbox.js';
import { zonedInstant } from '../../hub/src/kernel/zoned-time.js';
import { insertNotification } from '../../hub/src/notifications/notifications.repository.js';
import { webhookUrlColumns } from '../../hub/src/webhooks/webhooks.js';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';
import { type CapturedMail, type MailCatcher, startMailCatcher } from '../support/mail.js';
import { dayFromNow, insertResource } from './spaces-support.js';
import { mailTo, sleep, subjectsTo } from './notifications-support.js';

const VIENNA = 'Europe/Vienna';
const local = (n: number, time: string) => zonedInstant(`${dayFromNow(n)}T${time}`, VIENNA).toISOString();
const origin = 'http://hub.test';
const fast = { pollIntervalMs: 40, retryBaseMs: 150, retryMaxMs: 300, checkIntervalMs: 3600_000 };

describeEachDialect('mail notifications', (dialect) => {
  let t: TestHub;
  let bare: TestHub; // no HUB_SMTP_URL
  let mail: MailCatcher;
  const taken = new Set<CapturedMail>();
  let owner: string;
  let spaceId: number;
  let laser: number;
  let shift = 0;
  const clock = { now: () => new Date(Date.now() + shift) };

  const api = (token: string, method: string, url: string, payload?: object) =>
    t.call(token, { method: method as 'GET', url: `/api/v1${url}`, ...(payload ? { payload } : {}) });
  let people = 0;
  /** A member with an e-mail address (and language) and an API token. */
  const member = async (firstName: string, language?: string) => {
    people++;
    const emailAddress = `${firstName.toLowerCase()}${people}@test.example`;
    const created = await api(owner, 'POST', '/members', {
      firstName,
      emailAddress,
      space: spaceId,
      ...(language ? { language } : {}),
    });
    if (created.statusCode !== 201) throw new Error(created.body);
    const id = created.json().id as number;
    const key = (await api(owner, 'POST', '/api-keys', { member: id })).json();
    const token = (await api(owner, 'GET', `/api-keys/${key.id}/token`)).json().token as string;
    return { id, token, emailAddress };
  };
  const outbox = async (hub: TestHub = t) =>
    (await hub.call(hub.owner.token, { method: 'GET', url: '/api/v1/notification-outbox?limit=500' })).json();

  beforeAll(async () => {
    mail = await startMailCatcher();
    t = await startTestHub(dialect, {
      clock,
      settings: {
        smtpUrl: mail.url,
        mailFrom: 'Vienna lab <hub@test.example>',
        publicUrl: origin,
        notificationTuning: fast,
      },
    });
    owner = t.owner.token;
    const space = await api(owner, 'POST', '/spaces', {
      name: 'Vienna lab',
      timezone: VIENNA,
      bookingSlotsPerHour: 2,
      bookingWindowMaxDays: 14,
    });
    spaceId = space.json().id;
    laser = await insertResource(t, { space: spaceId, name: 'Laser', canBeBooked: 1 });
  });
  afterAll(async () => {
    await t?.close();
    await bare?.close();
    await mail?.close();
  });

  it('tells a member of their booking, its change and its cancellation, with a calendar file', async () => {
    const ada = await member('Ada');
    const booked = await api(ada.token, 'POST', '/bookings', {
      resource: laser,
      fromDateTime: local(3, '10:00'),
      untilDateTime: local(3, '11:00'),
    });
    expect(booked.statusCode).toBe(201);
    const made = await mailTo(mail, taken, ada.emailAddress, /^Booked: Laser/);
    expect(made.subject).toMatch(/10:00/);
    expect(made.body).toContain('Hello Ada,');
    expect(made.body).toContain('you booked Laser from');
    expect(made.body).toContain(`${origin}/account`);
    expect(made.body).toContain('<p style="margin:0 0 1em">Hello Ada,</p>');
    expect(made.body).toMatch(/filename=booking\.ics/);
    expect(made.body).toContain('METHOD:REQUEST');
    expect(made.body).toContain(`UID:booking-${booked.json().id}@hub.test`);

    const b = booked.json();
    const moved = await api(owner, 'PUT', `/bookings/${b.id}`, {
      lockVersion: b.lockVersion,
      fromDateTime: local(3, '12:00'),
      untilDateTime: local(3, '13:00'),
    });
    expect(moved.statusCode).toBe(200);
    const changed = await mailTo(mail, taken, ada.emailAddress, /^Booking changed: Laser/);
    expect(changed.body).toContain('your booking of Laser is now from');
    expect(changed.subject).toMatch(/12:00/);

    const cancelled = await api(ada.token, 'PUT', `/bookings/${b.id}`, {
      lockVersion: moved.json().lockVersion,
      state: 'cancelled',
    });
    expect(cancelled.statusCode).toBe(200);
    const gone = await mailTo(mail, taken, ada.emailAddress, /^Booking cancelled: Laser/);
    expect(gone.body).toContain('METHOD:CANCEL');
    expect(gone.body).toContain('STATUS:CANCELLED');
  });

  it('writes to a German member in German: invoice, payment, low balance, lost card', async () => {
    const jonas = await member('Jonas', 'de');
    expect(
      (await api(owner, 'POST', '/charges', { member: jonas.id, price: '20.00', description: 'Filament' }))
        .statusCode,
    ).toBe(201);
    const low = await mailTo(mail, taken, jonas.emailAddress, /^Dein Guthaben ist niedrig$/);
    expect(low.body).toContain('Hallo Jonas,');
    expect(low.body).toContain('dein Guthaben beträgt jetzt -20,00');

    const invoice = (await api(owner, 'POST', '/invoices', { member: jonas.id })).json();
    const issued = await mailTo(mail, taken, jonas.emailAddress, new RegExp(`^Rechnung ${invoice.number}$`));
    // Amounts as German writes them (Intl): a decimal comma and the currency after.
    expect(issued.body).toMatch(/deine Rechnung \S+ über 20,00\s€/);
    expect(issued.body).toContain('Welche Mails du bekommst');
    // The invoice itself rides along as the PDF the invoice route serves, in German.
    const raw = mail.mails.find(
      (m) => m.to.includes(jonas.emailAddress) && m.text.includes('application/pdf'),
    );
    const part = /Content-Type: application\/pdf[^\r\n]*\r\n(?:[^\r\n]+\r\n)*\r\n([A-Za-z0-9+/=\r\n]+)/.exec(
      raw?.text ?? '',
    );
    expect(raw?.text).toContain(`filename=invoice-${invoice.number}.pdf`);
    const pdf = new Uint8Array(Buffer.from((part?.[1] ?? '').replace(/\r\n/g, ''), 'base64'));
    // pdf.js takes the bytes it reads (the array is detached): give it a copy.
    const { text } = await extractText(await getDocumentProxy(pdf.slice()), { mergePages: true });
    expect(text).toContain('Rechnung');
    expect(text).toContain(invoice.number);
    const served = await api(owner, 'GET', `/invoices/${invoice.id}/pdf`);
    expect(Buffer.from(served.rawPayload).equals(Buffer.from(pdf))).toBe(true);

    expect(
      (await api(owner, 'POST', '/payments', { member: jonas.id, total: '20.00', method: 'cash' }))
        .statusCode,
    ).toBe(201);
    const paid = await mailTo(mail, taken, jonas.emailAddress, /^Zahlung über 20,00\s€ erhalten$/);
    expect(paid.body).toContain('danke: wir haben deine Zahlung');

    expect(
      (await api(owner, 'PUT', `/members/${jonas.id}/key`, { type: 'em4102', token: '0A1B2C3D4E' }))
        .statusCode,
    ).toBe(200);
    expect((await api(jonas.token, 'POST', `/members/${jonas.id}/key/lost`)).statusCode).toBe(200);
    const lost = await mailTo(mail, taken, jonas.emailAddress, /^Deine Schlüsselkarte ist gesperrt$/);
    expect(lost.body).toContain('als verloren gemeldet');
  });

  it('lets a member choose what they receive; a kind turned off sends nothing', async () => {
    const bea = await member('Bea');
    const read = await api(bea.token, 'GET', `/members/${bea.id}/notification-settings`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({
      member: bea.id,
      bookingMade: true,
      invoiceIssued: true,
      bookingReminder: false,
    });
    expect(read.json()).not.toHaveProperty('bridgeOffline');
    expect(
      (await api(owner, 'GET', `/members/${t.owner.memberId}/notification-settings`)).json(),
    ).toMatchObject({
      bridgeOffline: true,
      webhookFailing: true,
    });

    const off = await api(bea.token, 'PUT', `/members/${bea.id}/notification-settings`, {
      bookingMade: false,
    });
    expect(off.statusCode).toBe(200);
    expect(off.json()).toMatchObject({ bookingMade: false, bookingChanged: true });
    // Admin kinds are for admins; unknown kinds are refused; nothing changes then.
    const adminKind = await api(bea.token, 'PUT', `/members/${bea.id}/notification-settings`, {
      bridgeOffline: true,
      cardLost: false,
    });
    expect(adminKind.statusCode).toBe(422);
    expect(adminKind.body).toContain('bridgeOffline');
    const unknown = await api(bea.token, 'PUT', `/members/${bea.id}/notification-settings`, {
      newsletter: true,
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.body).toContain('newsletter');
    expect((await api(bea.token, 'GET', `/members/${bea.id}/notification-settings`)).json().cardLost).toBe(
      true,
    );
    // Another member's settings are not hers to see.
    const other = await member('Carl');
    expect((await api(bea.token, 'GET', `/members/${other.id}/notification-settings`)).statusCode).toBe(404);

    expect(
      (
        await api(bea.token, 'POST', '/bookings', {
          resource: laser,
          fromDateTime: local(4, '10:00'),
          untilDateTime: local(4, '11:00'),
        })
      ).statusCode,
    ).toBe(201);
    // A later mail of another kind arrives; the booking mail before it never does.
    await api(owner, 'PUT', `/members/${bea.id}/key`, { type: 'em4102', token: '0A0B0C0D0E' });
    await api(bea.token, 'POST', `/members/${bea.id}/key/lost`);
    await mailTo(mail, taken, bea.emailAddress, /^Your key card is blocked$/);
    expect(subjectsTo(mail, bea.emailAddress)).toEqual(['Your key card is blocked']);
  });

  it('sends nothing for a change that is rolled back', async () => {
    const dan = await member('Dan');
    const failed = t.hub.ctx.events.transaction(async (trx) => {
      await emitEvent(trx, {
        account: t.owner.accountId,
        type: 'booking_created',
        details: {
          booking: {
            id: 999,
            member: dan.id,
            resource: laser,
            fromDateTime: local(5, '10:00'),
            untilDateTime: local(5, '11:00'),
          },
          resource: { name: 'Laser' },
        },
      });
      await t.hub.ctx.notifications.cardLost(trx, {
        account: t.owner.accountId,
        member: dan.id,
        at: new Date().toISOString(),
      });
      throw new Error('the change fails');
    });
    await expect(failed).rejects.toThrow('the change fails');
    // The same, committed, does send: the test above is not empty by accident.
    await t.hub.ctx.events.transaction((trx) =>
      t.hub.ctx.notifications.payment(trx, {
        account: t.owner.accountId,
        member: dan.id,
        total: '5.00',
        currency: 'EUR',
        outcome: 'failed',
        reason: 'card declined',
        at: new Date().toISOString(),
      }),
    );
    const failedPayment = await mailTo(mail, taken, dan.emailAddress, /^Payment of €5\.00 failed$/);
    expect(failedPayment.body).toContain('(card declined)');
    await mailTo(mail, taken, 'owner@test.example', /^Payment failed: Dan, €5\.00$/);
    await sleep(200);
    expect(subjectsTo(mail, dan.emailAddress)).toEqual(['Payment of €5.00 failed']);
    const mine = (await outbox()).entries.filter((e: any) => e.member === dan.id);
    expect(mine.map((e: any) => e.kind)).toEqual(['paymentFailed']);
  });

  it('reminds of bookings, ending packages and expiring trainings once, and tells admins of offline bridges and failing webhooks', async () => {
    const eve = await member('Eve');
    await api(eve.token, 'PUT', `/members/${eve.id}/notification-settings`, { bookingReminder: true });
    const booking = await api(eve.token, 'POST', '/bookings', {
      resource: laser,
      fromDateTime: local(3, '15:00'),
      untilDateTime: local(3, '16:00'),
    });
    expect(booking.statusCode).toBe(201);
    await mailTo(mail, taken, eve.emailAddress, /^Booked: Laser/);
    const pkg = (await api(owner, 'POST', '/packages', { name: 'Monthly' })).json();
    await api(owner, 'POST', `/members/${eve.id}/packages`, {
      package: pkg.id,
      fromDate: dayFromNow(-30),
      untilDate: dayFromNow(10),
    });
    const course = (await api(owner, 'POST', '/training-courses', { title: 'Laser safety' })).json();
    const training = await api(owner, 'POST', `/members/${eve.id}/trainings`, {
      trainingCourse: course.id,
      date: dayFromNow(-300),
      untilDate: dayFromNow(20),
    });
    expect(training.statusCode).toBe(201);
    // A bridge gone for ten minutes, and a failing webhook.
    const at = new Date(Date.now() - 10 * 60_000).toISOString();
    const printer = await insertResource(t, { space: spaceId, name: 'Printer' });
    await t.hub.ctx.db
      .insertInto('bridges')
      .values({
        resource: printer,
        account: t.owner.accountId,
        apiKeyHash: 'h',
        apiKeyEncrypted: 'e',
        offline: 1,
        lastSeenAt: at,
        createdAt: at,
        updatedAt: at,
      } as any)
      .execute();
    await t.hub.ctx.db
      .insertInto('webhooks')
      .values({
        account: t.owner.accountId,
        ...webhookUrlColumns('https://receiver.test/hook', (plain) => t.hub.ctx.tokens.seal(plain)),
        label: 'Accounting',
        notes: null,
        state: 'failing',
        categories: JSON.stringify(['member']),
        secretEncrypted: t.hub.ctx.tokens.seal('whsec_x'),
        failingSince: at,
        consecutiveFailures: 4,
        createdAt: at,
        updatedAt: at,
        updatedBy: null,
      } as any)
      .execute();

    // Later, the booking starts within a day.
    shift = Date.parse(booking.json().fromDateTime) - Date.now() - 12 * 3600_000;
    try {
      await t.hub.notices.check();
      await t.hub.notices.check();
    } finally {
      shift = 0;
    }
    await mailTo(mail, taken, eve.emailAddress, /^Reminder: Laser/);
    const ending = await mailTo(mail, taken, eve.emailAddress, /^Your package Monthly ends on /);
    expect(ending.body).toContain('your package Monthly ends on');
    await mailTo(mail, taken, eve.emailAddress, /^Your training Laser safety expires on /);
    const offline = await mailTo(mail, taken, 'owner@test.example', /^Bridge offline: Printer$/);
    expect(offline.body).toContain('the bridge of Printer has been offline since');
    const hook = await mailTo(mail, taken, 'owner@test.example', /^Webhook failing: Accounting$/);
    expect(hook.body).toContain('failed 4 times in a row');
    await t.hub.notices.check();
    await sleep(300);
    const subjects = subjectsTo(mail, eve.emailAddress);
    expect(subjects.filter((s) => s.startsWith('Reminder:'))).toHaveLength(1);
    expect(subjects.filter((s) => s.startsWith('Your package'))).toHaveLength(1);
    expect(subjects.filter((s) => s.startsWith('Your training'))).toHaveLength(1);
    expect(
      subjectsTo(mail, 'owner@test.example').filter((s) => s === 'Bridge offline: Printer'),
    ).toHaveLength(1);
    // Eve did not want these: she is no admin.
    expect(subjects.some((s) => s.startsWith('Bridge offline'))).toBe(false);
  });

  it('tells the maintainers of an unsafe machine, and the admins of a sign-up waiting for them', async () => {
    const type = (await api(owner, 'POST', '/resource-types', { name: 'Laser cutters' })).json();
    const cutter = (
      await api(owner, 'POST', '/resources', { space: spaceId, name: 'Cutter', type: type.id })
    ).json();
    const mo = await member('Mo');
    const rita = await member('Rita');
    expect(
      (await api(owner, 'POST', `/resource-types/${type.id}/maintainers`, { member: mo.id })).statusCode,
    ).toBe(201);
    const report = await api(rita.token, 'POST', `/resources/${cutter.id}/problem-reports`, {
      description: 'The lens is cracked',
      severity: 'unsafe',
    });
    expect(report.statusCode).toBe(201);
    const told = await mailTo(mail, taken, mo.emailAddress, /^Unsafe: Cutter$/);
    expect(told.body).toContain('Rita reported a problem with Cutter, marked unsafe');
    expect(told.body).toContain('The lens is cracked');
    // The maintainers are told, not the admins (there is a maintainer) nor the reporter.
    expect(subjectsTo(mail, 'owner@test.example')).not.toContain('Unsafe: Cutter');
    expect(subjectsTo(mail, rita.emailAddress)).not.toContain('Unsafe: Cutter');

    // A stranger signs up and confirms their address: the admins hear that someone waits.
    const pkg = (await api(owner, 'POST', '/packages', { name: 'Join me' })).json();
    await api(owner, 'PUT', `/spaces/${spaceId}/house-rules`, {
      houseRules: '<p>Be kind.</p>',
      waiver: '<p>Own risk.</p>',
    });
    expect(
      (await api(owner, 'PUT', `/spaces/${spaceId}/sign-up-settings`, { enabled: true, packages: [pkg.id] }))
        .statusCode,
    ).toBe(200);
    const joined = await t.app.inject({
      method: 'POST',
      url: '/api/v1/sign-ups',
      payload: {
        space: spaceId,
        firstName: 'Sam',
        lastName: 'Stranger',
        emailAddress: 'sam@test.example',
        package: pkg.id,
        acceptedVersion: 1,
      },
    });
    expect(joined.statusCode).toBe(201);
    const link = await mailTo(mail, taken, 'sam@test.example', /./);
    const token = /#token=([A-Za-z0-9_-]+)/.exec(link.body)?.[1];
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/v1/sign-ups/confirm', payload: { token } }))
        .statusCode,
    ).toBe(200);
    await t.hub.notices.check();
    const waiting = await mailTo(mail, taken, 'owner@test.example', /^Sign-up waiting: Sam Stranger$/);
    expect(waiting.body).toContain('Sam Stranger (sam@test.example) signed up and confirmed');
    await t.hub.notices.check();
    await sleep(200);
    expect(
      subjectsTo(mail, 'owner@test.example').filter((s) => s === 'Sign-up waiting: Sam Stranger'),
    ).toHaveLength(1);
  });

  it('counts the days to a package’s end in the member’s space, not in UTC', async () => {
    const zoe = await member('Zoe');
    const pkg = (await api(owner, 'POST', '/packages', { name: 'Quarterly' })).json();
    // At 23:30 UTC it is already tomorrow in Vienna: 14 days from Vienna's today is 15 from UTC's.
    const lateUtc = new Date();
    lateUtc.setUTCHours(23, 30, 0, 0);
    const viennaToday = zonedInstant(`${lateUtc.toISOString().slice(0, 10)}T12:00`, 'UTC');
    viennaToday.setUTCDate(viennaToday.getUTCDate() + 1);
    const lastDay = new Date(viennaToday.getTime() + 14 * 86_400_000).toISOString().slice(0, 10);
    await api(owner, 'POST', `/members/${zoe.id}/packages`, {
      package: pkg.id,
      fromDate: dayFromNow(-30),
      untilDate: lastDay,
    });
    shift = lateUtc.getTime() - Date.now();
    try {
      await t.hub.notices.check();
    } finally {
      shift = 0;
    }
    const ending = await mailTo(mail, taken, zoe.emailAddress, /^Your package Quarterly ends on /);
    expect(ending.body).toContain('your package Quarterly ends on');
  });

  it('retries a mail the mail server refused, and delivers it once', async () => {
    const finn = await member('Finn');
    mail.failing(true);
    try {
      await api(owner, 'PUT', `/members/${finn.id}/key`, { type: 'em4102', token: '0F0F0F0F0F' });
      await api(finn.token, 'POST', `/members/${finn.id}/key/lost`);
      for (let i = 0; ; i++) {
        const entry = (await outbox()).entries.find((e: any) => e.member === finn.id);
        if (entry?.attempts >= 2) {
          expect(entry).toMatchObject({ state: 'queued', subject: 'Your key card is blocked' });
          expect(entry.lastError).toMatch(/mailbox unavailable/);
          expect(entry.nextAttemptAt).not.toBeNull();
          break;
        }
        if (i > 200) throw new Error('the refused mail was not retried');
        await sleep(25);
      }
    } finally {
      mail.failing(false);
    }
    await mailTo(mail, taken, finn.emailAddress, /^Your key card is blocked$/);
    await sleep(500);
    expect(subjectsTo(mail, finn.emailAddress)).toEqual(['Your key card is blocked']);
    const entry = (await outbox()).entries.find((e: any) => e.member === finn.id);
    expect(entry).toMatchObject({ state: 'sent', lastError: null });
    expect(entry.attempts).toBeGreaterThanOrEqual(3);
  });

  it('gives up a mail that waited longer than a week unsent, until an admin sends it anyway', async () => {
    const ivy = await member('Ivy');
    const longAgo = new Date(Date.now() - 8 * 86_400_000).toISOString();
    await insertNotification(t.hub.ctx.db, {
      account: t.owner.accountId,
      member: ivy.id,
      kind: 'bookingReminder',
      params: { bookingId: 1, resourceName: 'Laser', from: longAgo, until: longAgo },
      createdAt: longAgo,
    });
    t.hub.notifications.wake();
    let entry: any;
    for (let i = 0; i < 200 && entry?.state !== 'failed'; i++) {
      await sleep(25);
      entry = (await outbox()).entries.find((e: any) => e.member === ivy.id);
    }
    expect(entry).toMatchObject({
      state: 'failed',
      attempts: 0,
      lastError: 'not sent within 7 days of being queued; given up',
    });
    expect(subjectsTo(mail, ivy.emailAddress)).toEqual([]);
    const retry = await api(owner, 'POST', `/notification-outbox/${entry.id}/retry`);
    expect(retry.json()).toEqual({ retry: 'scheduled' });
    await mailTo(mail, taken, ivy.emailAddress, /^Reminder: Laser/);
    // The mail server took it; the outbox records it as sent right after, and then it is no
    // longer a mail to retry.
    for (let i = 0; i < 200 && entry?.state !== 'sent'; i++) {
      await sleep(25);
      entry = (await outbox()).entries.find((e: any) => e.member === ivy.id);
    }
    expect(entry.state).toBe('sent');
    expect((await api(owner, 'POST', `/notification-outbox/${entry.id}/retry`)).statusCode).toBe(404);
  });

  it('without HUB_SMTP_URL sends nothing, and the outbox says what waits', async () => {
    bare = await startTestHub(dialect, { settings: { notificationTuning: fast } });
    const created = await bare.call(bare.owner.token, {
      method: 'POST',
      url: '/api/v1/members',
      payload: { firstName: 'Gil', emailAddress: 'gil@bare.example' },
    });
    const gil = created.json().id;
    await bare.call(bare.owner.token, {
      method: 'PUT',
      url: `/api/v1/members/${gil}/key`,
      payload: { type: 'em4102', token: '0C0C0C0C0C' },
    });
    const lost = await bare.call(bare.owner.token, {
      method: 'POST',
      url: `/api/v1/members/${gil}/key/lost`,
    });
    expect(lost.statusCode).toBe(200);
    await sleep(200);
    const box = await outbox(bare);
    expect(box).toMatchObject({ mailConfigured: false, queued: 1, failed: 0 });
    expect(box.entries[0]).toMatchObject({
      member: gil,
      memberName: 'Gil',
      kind: 'cardLost',
      state: 'queued',
      attempts: 0,
      sentAt: null,
    });
    expect(mail.mails.some((m) => m.to.includes('gil@bare.example'))).toBe(false);
    // Members do not read the outbox.
    const plain = await member('Hal');
    expect((await api(plain.token, 'GET', '/notification-outbox')).statusCode).toBe(403);
  });
});

describe('notification settings defaults', () => {
  it('keeps the booking reminder off until asked for, everything else on', async () => {
    const { defaultOff } = await import('../../hub/src/notifications/kinds.js');
    expect([...defaultOff]).toEqual(['bookingReminder']);
  });
});
