import { webhookUrlColumns } from '../../hub/src/webhooks/webhooks.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';
import { insertResource, plainMember } from './spaces-support.js';

/** A clock the test moves: Wednesday 2026-03-04 10:00 UTC. */
const clock = { current: new Date('2026-03-04T10:00:00.000Z'), now: () => clock.current };

describeEachDialect('member sub-resources', (dialect) => {
  let t: TestHub;
  let owner: string;
  let mia: { memberId: number; token: string };
  let leo: { memberId: number; token: string };
  beforeAll(async () => {
    clock.current = new Date('2026-03-04T10:00:00.000Z');
    t = await startTestHub(dialect, { clock });
    owner = t.owner.token;
    mia = await plainMember(t, 'Mia');
    leo = await plainMember(t, 'Leo');
    // A paused webhook of every member category: events are written (queued), none delivered.
    const at = clock.now().toISOString();
    await t.hub.ctx.db
      .insertInto('webhooks')
      .values({
        account: t.owner.accountId,
        ...webhookUrlColumns('http://127.0.0.1:9/hook', (plain) => t.hub.ctx.tokens.seal(plain)),
        state: 'paused',
        categories: JSON.stringify(['member', 'memberCredit', 'memberTraining']),
        secretEncrypted: 'unused',
        label: null,
        notes: null,
        failingSince: null,
        createdAt: at,
        updatedAt: at,
        updatedBy: null,
      })
      .execute();
  });
  afterAll(async () => t?.close());

  const call = (token: string, method: string, url: string, payload?: unknown) =>
    t.call(token, {
      method: method as 'GET',
      url: `/api/v1${url}`,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const count = async (url: string) => Number((await call(owner, 'GET', url)).headers['x-total-count']);
  const events = async (type: string) =>
    (
      await t.hub.ctx.db
        .selectFrom('webhook_events')
        .select('details')
        .where('type', '=', type)
        .orderBy('id')
        .execute()
    ).map((e) => JSON.parse(e.details));

  describe('credits', () => {
    it('admins give, change and delete credits by hand; members read their own', async () => {
      const url = `/members/${mia.memberId}/credits`;
      const created = await call(owner, 'POST', url, { amount: 20, scope: 'usage', notes: 'Open day' });
      expect(created.statusCode).toBe(201);
      const credit = created.json();
      expect(credit).toMatchObject({
        member: mia.memberId,
        memberPackage: null,
        packageCredit: null,
        scope: 'usage',
        amount: '20.00',
        remaining: '20.00',
        fromDate: '2026-03-04',
        untilDate: null,
        notes: 'Open day',
        lockVersion: 1,
      });
      expect((await events('memberCredit_created')).at(-1)).toMatchObject({
        memberCredit: { id: credit.id },
        member: { id: mia.memberId },
      });

      // The member sees it; another member sees neither the list nor the credit.
      const mine = await call(mia.token, 'GET', url);
      expect(mine.statusCode).toBe(200);
      expect(mine.json().map((c: { id: number }) => c.id)).toEqual([credit.id]);
      expect((await call(leo.token, 'GET', url)).statusCode).toBe(404);
      expect((await call(leo.token, 'GET', `${url}/${credit.id}`)).statusCode).toBe(404);
      expect((await call(leo.token, 'GET', `/members/${leo.memberId}/credits/${credit.id}`)).statusCode).toBe(
        404,
      );

      // A session took 15.00 of it: a new amount moves what remains by the difference.
      await t.hub.ctx.db
        .updateTable('member_credits')
        .set({ remaining: '5.00' })
        .where('id', '=', credit.id)
        .execute();
      await t.hub.ctx.db
        .insertInto('credit_uses')
        .values({
          account: t.owner.accountId,
          member: mia.memberId,
          memberCredit: credit.id,
          resourceLog: null,
          booking: null,
          amount: '15.00',
          createdAt: clock.now().toISOString(),
        })
        .execute();
      const put = await call(owner, 'PUT', `${url}/${credit.id}`, { amount: '30', lockVersion: 1 });
      expect(put.statusCode).toBe(200);
      expect(put.json()).toMatchObject({ amount: '30.00', remaining: '15.00', lockVersion: 2 });
      expect((await events('memberCredit_updated')).at(-1)).toMatchObject({
        memberCredit: { id: credit.id, remaining: '15.00' },
      });
      expect(
        (await call(owner, 'PUT', `${url}/${credit.id}`, { amount: '1', lockVersion: 1 })).statusCode,
      ).toBe(409);

      const uses = await call(mia.token, 'GET', `${url}/${credit.id}/uses`);
      expect(uses.statusCode).toBe(200);
      expect(uses.json()).toEqual([
        expect.objectContaining({ memberCredit: credit.id, amount: '15.00', charge: null }),
      ]);
      expect((await call(leo.token, 'GET', `${url}/${credit.id}/uses`)).statusCode).toBe(404);

      expect((await call(mia.token, 'DELETE', `${url}/${credit.id}`)).statusCode).toBe(403);
      expect((await call(owner, 'DELETE', `${url}/${credit.id}`)).statusCode).toBe(204);
      expect((await call(owner, 'GET', `${url}/${credit.id}`)).statusCode).toBe(404);
      expect((await events('memberCredit_deleted')).at(-1)).toMatchObject({
        memberCredit: { id: credit.id },
      });
    });

    it('refuses bad input (400 naming the field), bad periods (422) and member writes (403), storing nothing', async () => {
      const url = `/members/${mia.memberId}/credits`;
      const before = await count(url);
      const bad = await call(owner, 'POST', url, { amount: 'lots' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().message).toContain('amount');
      expect((await call(owner, 'POST', url, { amount: '5', colour: 'red' })).statusCode).toBe(400);
      const range = await call(owner, 'POST', url, {
        amount: '5',
        fromDate: '2026-03-10',
        untilDate: '2026-03-01',
      });
      expect(range.statusCode).toBe(422);
      expect((await call(mia.token, 'POST', url, { amount: '5' })).statusCode).toBe(403);
      expect(await count(url)).toBe(before);
    });

    it('takes the lockVersion the published client sends on create and ignores it; other unknown fields stay 400', async () => {
      const url = `/members/${mia.memberId}/credits`;
      const before = await count(url);
      // As the Fabman Python client sends it: the whole record it would write, lockVersion included.
      const created = await call(owner, 'POST', url, { amount: '7.50', lockVersion: 0 });
      expect(created.statusCode).toBe(201);
      expect(created.json()).toMatchObject({ amount: '7.50' });
      expect(await count(url)).toBe(before + 1);
      const unknown = await call(owner, 'POST', url, { amount: '1', lockVersion: 0, colour: 'red' });
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json().message).toContain('colour');
      expect(await count(url)).toBe(before + 1);
      // Every create takes it, a member's too.
      const member = await call(owner, 'POST', '/members', { firstName: 'Lock', lockVersion: 3 });
      expect(member.statusCode).toBe(201);
    });

    it('current=true keeps only credits of today’s period', async () => {
      const url = `/members/${leo.memberId}/credits`;
      const now = (await call(owner, 'POST', url, { amount: '5' })).json();
      await call(owner, 'POST', url, { amount: '5', fromDate: '2026-01-01', untilDate: '2026-02-01' });
      await call(owner, 'POST', url, { amount: '5', fromDate: '2026-04-01' });
      const current = await call(leo.token, 'GET', `${url}?current=true`);
      expect(current.json().map((c: { id: number }) => c.id)).toEqual([now.id]);
      expect((await call(leo.token, 'GET', url)).json()).toHaveLength(3);
    });
  });

  describe('scheduled member changes', () => {
    it('are applied by the periodic worker on their date in the member’s space, as a PUT would', async () => {
      // Auckland is 13 hours ahead of UTC in March.
      await t.hub.ctx.db
        .updateTable('spaces')
        .set({ timezone: 'Pacific/Auckland' })
        .where('id', '=', t.owner.spaceId)
        .execute();
      const url = `/members/${mia.memberId}/changes`;
      const created = await call(owner, 'POST', url, { date: '2026-03-10', lastName: 'Later', city: 'Graz' });
      expect(created.statusCode).toBe(201);
      const change = created.json();
      expect(change).toMatchObject({
        member: mia.memberId,
        date: '2026-03-10',
        state: 'scheduled',
        appliedAt: null,
        lastName: 'Later',
        changes: { lastName: ['', 'Later'], city: [null, 'Graz'] },
      });
      expect((await call(mia.token, 'GET', `${url}/${change.id}`)).statusCode).toBe(200);
      expect((await call(leo.token, 'GET', `${url}/${change.id}`)).statusCode).toBe(404);
      const updatesBefore = (await events('member_updated')).length;

      // 2026-03-09 23:00 in Auckland: not yet.
      clock.current = new Date('2026-03-09T10:00:00.000Z');
      await t.hub.memberChanges.check();
      expect((await call(owner, 'GET', `/members/${mia.memberId}`)).json().lastName).toBe('');

      // 2026-03-10 01:00 in Auckland: applied.
      clock.current = new Date('2026-03-09T12:00:00.000Z');
      await t.hub.memberChanges.check();
      const member = (await call(owner, 'GET', `/members/${mia.memberId}`)).json();
      expect(member).toMatchObject({
        lastName: 'Later',
        city: 'Graz',
        updatedAt: '2026-03-09T12:00:00.000Z',
      });
      const applied = (await call(mia.token, 'GET', `${url}/${change.id}`)).json();
      expect(applied).toMatchObject({
        state: 'applied',
        appliedAt: '2026-03-09T12:00:00.000Z',
        changes: { lastName: ['', 'Later'], city: [null, 'Graz'] },
      });
      const updates = await events('member_updated');
      expect(updates).toHaveLength(updatesBefore + 1);
      expect(updates.at(-1)).toMatchObject({ member: { id: mia.memberId, lastName: 'Later' } });

      // Once only; an applied change can no longer be edited.
      await t.hub.memberChanges.check();
      expect(await events('member_updated')).toHaveLength(updatesBefore + 1);
      const edit = await call(owner, 'PUT', `${url}/${change.id}`, { date: '2026-04-01', lockVersion: 1 });
      expect(edit.statusCode).toBe(409);
      expect((await call(owner, 'GET', `${url}?state=applied`)).json()).toHaveLength(1);
      clock.current = new Date('2026-03-04T10:00:00.000Z');
      await t.hub.ctx.db
        .updateTable('spaces')
        .set({ timezone: 'UTC' })
        .where('id', '=', t.owner.spaceId)
        .execute();
    });

    it('admins edit and delete scheduled changes; members may not; bad input is a 400 naming the field', async () => {
      const url = `/members/${leo.memberId}/changes`;
      const change = (await call(owner, 'POST', url, { date: '2026-06-01', state: 'locked' })).json();
      const moved = await call(owner, 'PUT', `${url}/${change.id}`, {
        date: '2026-07-01',
        phone: '123',
        lockVersion: 1,
      });
      expect(moved.statusCode).toBe(200);
      expect(moved.json()).toMatchObject({
        date: '2026-07-01',
        state: 'scheduled',
        changes: { state: ['active', 'locked'], phone: [null, '123'] },
      });

      const before = await count(url);
      const badDate = await call(owner, 'POST', url, { date: '1 June', state: 'locked' });
      expect(badDate.statusCode).toBe(400);
      expect(badDate.json().message).toContain('date');
      const badState = await call(owner, 'POST', url, { date: '2026-06-01', state: 'gone' });
      expect(badState.statusCode).toBe(400);
      expect(badState.json().message).toContain('state');
      expect((await call(owner, 'POST', url, { date: '2026-06-01', shoeSize: 44 })).statusCode).toBe(400);
      expect((await call(leo.token, 'POST', url, { date: '2026-06-01', lastName: 'Mine' })).statusCode).toBe(
        403,
      );
      expect((await call(leo.token, 'DELETE', `${url}/${change.id}`)).statusCode).toBe(403);
      expect((await call(mia.token, 'GET', url)).statusCode).toBe(404);
      expect(await count(url)).toBe(before);

      expect((await call(owner, 'DELETE', `${url}/${change.id}`)).statusCode).toBe(204);
      expect((await call(owner, 'GET', `${url}/${change.id}`)).statusCode).toBe(404);
      // Deleted before its date: never applied.
      clock.current = new Date('2026-08-01T10:00:00.000Z');
      await t.hub.memberChanges.check();
      clock.current = new Date('2026-03-04T10:00:00.000Z');
      expect((await call(owner, 'GET', `/members/${leo.memberId}`)).json().state).toBe('active');
    });
  });

  describe('device', () => {
    it('answers an object of nulls until known (clients call .json() on it); the member sets it, each write adds a device change', async () => {
      const url = `/members/${mia.memberId}/device`;
      const unknown = await call(mia.token, 'GET', url);
      expect(unknown.statusCode).toBe(200);
      expect(unknown.json()).toEqual({
        member: mia.memberId,
        name: null,
        details: null,
        userAgent: null,
        createdAt: null,
        updatedAt: null,
      });
      const put = await call(mia.token, 'PUT', url, { name: 'Phone', userAgent: 'App/1' });
      expect(put.statusCode).toBe(200);
      expect(put.json()).toMatchObject({
        member: mia.memberId,
        name: 'Phone',
        userAgent: 'App/1',
        details: null,
      });
      await call(mia.token, 'PUT', url, { details: 'Android 15' });
      expect((await call(mia.token, 'GET', url)).json()).toMatchObject({
        name: 'Phone',
        details: 'Android 15',
      });
      expect((await call(leo.token, 'GET', url)).statusCode).toBe(404);
      expect((await call(leo.token, 'PUT', url, { name: 'Not mine' })).statusCode).toBe(404);
      const bad = await call(mia.token, 'PUT', url, { name: 'x'.repeat(201) });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().message).toContain('name');

      const changes = await call(mia.token, 'GET', `${url}/changes`);
      expect(
        changes.json().map((c: { name: string; details: string | null }) => [c.name, c.details]),
      ).toEqual([
        ['Phone', 'Android 15'],
        ['Phone', null],
      ]);
    });

    it('device changes: admins create, update and delete them; members only read their own', async () => {
      const url = `/members/${mia.memberId}/device/changes`;
      expect((await call(mia.token, 'POST', url, { name: 'Tablet' })).statusCode).toBe(403);
      const created = await call(owner, 'POST', url, { name: 'Old phone' });
      expect(created.statusCode).toBe(201);
      const id = created.json().id;
      expect((await call(owner, 'POST', url, { name: 'Old phone', colour: 'red' })).statusCode).toBe(400);
      const put = await call(owner, 'PUT', `${url}/${id}`, { userAgent: 'App/0.9', lockVersion: 1 });
      expect(put.json()).toMatchObject({ name: 'Old phone', userAgent: 'App/0.9', lockVersion: 2 });
      expect((await call(mia.token, 'GET', `${url}/${id}`)).statusCode).toBe(200);
      expect((await call(leo.token, 'GET', `${url}/${id}`)).statusCode).toBe(404);
      expect((await call(mia.token, 'DELETE', `${url}/${id}`)).statusCode).toBe(403);
      expect((await call(owner, 'DELETE', `${url}/${id}`)).statusCode).toBe(204);
      expect((await call(owner, 'GET', `${url}/${id}`)).statusCode).toBe(404);
    });
  });

  describe('payment account, payment method and mandate', () => {
    /** What a client that calls .json() on the answer reads before anything was written. */
    const unwritten = async (url: string) => {
      const res = await call(mia.token, 'GET', url);
      expect(res.statusCode).toBe(200);
      const { member, ...rest } = res.json();
      expect(member).toBe(mia.memberId);
      expect(Object.values(rest).every((v) => v === null)).toBe(true);
      return rest;
    };

    it('payment account: an object of nulls until written, admins write it', async () => {
      const url = `/members/${mia.memberId}/payment-account`;
      expect(await unwritten(url)).toMatchObject({ provider: null, emailAddress: null });
      expect((await call(mia.token, 'PUT', url, { provider: 'sepa' })).statusCode).toBe(403);
      const bad = await call(owner, 'PUT', url, { emailAddress: 'not an address' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().message).toContain('emailAddress');
      await unwritten(url);
      const put = await call(owner, 'PUT', url, { provider: 'sepa', customerReference: 'C-1' });
      expect(put.statusCode).toBe(200);
      await call(owner, 'PUT', url, { notes: 'Pays yearly' });
      expect((await call(mia.token, 'GET', url)).json()).toMatchObject({
        member: mia.memberId,
        provider: 'sepa',
        customerReference: 'C-1',
        notes: 'Pays yearly',
        emailAddress: null,
      });
      expect((await call(leo.token, 'GET', url)).statusCode).toBe(404);
    });

    it('payment method: the member sets and removes their own; the mandate preview shows it', async () => {
      const url = `/members/${mia.memberId}/payment-method`;
      expect(await unwritten(url)).toMatchObject({ type: null, iban: null });
      const bad = await call(mia.token, 'PUT', url, { type: 'sepa', iban: '12345' });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().message).toContain('iban');
      await unwritten(url);
      expect((await call(leo.token, 'PUT', url, { type: 'cash' })).statusCode).toBe(404);

      const put = await call(mia.token, 'PUT', url, {
        type: 'sepa',
        iban: 'at61 1904 3002 3457 3201',
        accountOwnerName: 'Mia M',
      });
      expect(put.statusCode).toBe(200);
      expect(put.json()).toMatchObject({
        type: 'sepa',
        iban: 'AT611904300234573201',
        accountOwnerName: 'Mia M',
      });

      await t.hub.ctx.db
        .updateTable('space_billing_settings')
        .set({
          sepaCreditorId: 'AT12ZZZ00000000001',
          sepaMandateText: 'I authorise {creditorName} ({creditorId}).',
          sepaAccountOwnerName: 'Makerspace',
        })
        .where('space', '=', t.owner.spaceId)
        .execute();
      const preview = await call(mia.token, 'GET', `/members/${mia.memberId}/payment-method-mandate-preview`);
      expect(preview.statusCode).toBe(200);
      expect(preview.json()).toMatchObject({ iban: 'AT611904300234573201', accountOwnerName: 'Mia M' });
      expect(preview.json().mandateReference).toBeTruthy();
      expect(
        (await call(leo.token, 'GET', `/members/${mia.memberId}/payment-method-mandate-preview`)).statusCode,
      ).toBe(404);

      expect((await call(leo.token, 'DELETE', url)).statusCode).toBe(404);
      expect((await call(mia.token, 'DELETE', url)).statusCode).toBe(204);
      await unwritten(url);
    });
  });

  it('balance items: the sums and open items of the member’s own balance', async () => {
    const charge = await call(owner, 'POST', '/charges', {
      member: leo.memberId,
      description: 'Laser time',
      price: '12.50',
      dateTime: '2026-03-03T10:00:00.000Z',
    });
    expect(charge.statusCode).toBe(201);
    const res = await call(leo.token, 'GET', `/members/${leo.memberId}/balance-items`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      member: leo.memberId,
      sumCharges: '12.50',
      sumUnpaidBookings: '0.00',
      sumInvoices: '0.00',
      sumPayments: '0.00',
      balance: '-12.50',
      items: [{ type: 'charge', id: charge.json().id, description: 'Laser time', amount: '-12.50' }],
    });
    expect((await call(mia.token, 'GET', `/members/${leo.memberId}/balance-items`)).statusCode).toBe(404);
  });

  it('trained resources, and updating a member training (memberTraining_updated)', async () => {
    const laser = await insertResource(t, { space: t.owner.spaceId, name: 'Laser', requiresTraining: 1 });
    await insertResource(t, { space: t.owner.spaceId, name: 'Door', requiresTraining: 0 });
    const course = (
      await call(owner, 'POST', '/training-courses', { title: 'Laser', resources: [laser] })
    ).json();
    const url = `/members/${mia.memberId}/trained-resources`;
    expect((await call(mia.token, 'GET', url)).json()).toEqual([]);
    const training = (
      await call(owner, 'POST', `/members/${mia.memberId}/trainings`, {
        trainingCourse: course.id,
        date: '2026-03-01',
      })
    ).json();
    expect((await call(mia.token, 'GET', url)).json()).toEqual([laser]);
    expect((await call(leo.token, 'GET', url)).statusCode).toBe(404);

    const tUrl = `/members/${mia.memberId}/trainings/${training.id}`;
    expect((await call(mia.token, 'PUT', tUrl, { untilDate: '2026-03-02', lockVersion: 1 })).statusCode).toBe(
      403,
    );
    const range = await call(owner, 'PUT', tUrl, { untilDate: '2026-02-01', lockVersion: 1 });
    expect(range.statusCode).toBe(422);
    const ended = await call(owner, 'PUT', tUrl, { untilDate: '2026-03-02', lockVersion: 1 });
    expect(ended.statusCode).toBe(200);
    expect(ended.json()).toMatchObject({ untilDate: '2026-03-02', lockVersion: 2 });
    expect((await events('memberTraining_updated')).at(-1)).toMatchObject({
      memberTraining: { id: training.id, untilDate: '2026-03-02' },
      member: { id: mia.memberId },
    });
    // Expired: no longer trained.
    expect((await call(mia.token, 'GET', url)).json()).toEqual([]);
  });
});
