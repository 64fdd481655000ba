import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { chargeForStoppedSession } from '../../hub/src/billing/charges.js';
import { describeEachDialect, freshDatabase, type TestDatabase } from '../support/dialects.js';
import { connectFakeAgent, type FakeAgent } from '../support/fake-agent.js';
import {
  openWebhookHub,
  type Receiver,
  sleep,
  startReceiver,
  waitFor,
  type WebhookHub,
} from './webhooks-helpers.js';

describeEachDialect('webhook events of every area', (dialect) => {
  let db: TestDatabase;
  let t: WebhookHub;
  let owner: string;
  let mqttUrl: string;
  const agents: FakeAgent[] = [];
  const teardown: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    db = await freshDatabase(dialect);
    t = await openWebhookHub(db);
    owner = t.owner.token;
    const { mqttPort } = await t.hub.listen();
    mqttUrl = `mqtt://127.0.0.1:${mqttPort}`;
  });
  afterEach(async () => {
    const hooks = await t.hub.ctx.db.selectFrom('webhooks').select('id').execute();
    for (const h of hooks) await t.hub.ctx.db.deleteFrom('webhooks').where('id', '=', h.id).execute();
    for (const close of teardown.splice(0)) await close();
  });
  afterAll(async () => {
    for (const a of agents) await a.close();
    await t?.close();
    await db?.dispose();
  });

  const api = (token: string, method: string, url: string, payload?: unknown) =>
    t.call(token, {
      method: method as any,
      url: `/api/v1${url}`,
      ...(payload === undefined ? {} : { payload: payload as any }),
    });

  /** A receiver subscribed to one category. */
  async function hook(category: string): Promise<Receiver> {
    const r = await startReceiver();
    teardown.push(() => r.close());
    const res = await api(owner, 'POST', '/webhooks', { url: r.url, categories: [category] });
    expect(res.statusCode).toBe(201);
    return r;
  }
  const types = (r: Receiver) => r.received.map((x) => x.json.type as string);
  /** Waits for n events, then a little longer to see that no more come. */
  async function received(r: Receiver, n: number) {
    await waitFor(`${n} events`, () => r.received.length >= n, 5000);
    await sleep(300);
    return r.received.map((x) => x.json);
  }

  let everything: number | null = null;
  let memberCount = 0;
  async function newMember() {
    memberCount++;
    const res = await api(owner, 'POST', '/members', {
      firstName: `Maya${memberCount}`,
      lastName: 'Maker',
      emailAddress: `maya${memberCount}@events.example`,
    });
    expect(res.statusCode).toBe(201);
    return res.json();
  }
  /** A member whose package allows every resource, with an API token. */
  async function memberWithToken() {
    if (everything === null) {
      everything = (await api(owner, 'POST', '/packages', { name: 'Full membership' })).json().id as number;
      expect(
        (await api(owner, 'POST', `/packages/${everything}/permissions`, { type: 'everything' })).statusCode,
      ).toBe(201);
    }
    const member = await newMember();
    expect(
      (await api(owner, 'POST', `/members/${member.id}/packages`, { package: everything })).statusCode,
    ).toBe(201);
    const key = (await api(owner, 'POST', '/api-keys', { member: member.id })).json();
    const token = (await api(owner, 'GET', `/api-keys/${key.id}/token`)).json().token as string;
    return { member, token };
  }
  async function newResource(body: Record<string, unknown> = {}) {
    const res = await api(owner, 'POST', '/resources', {
      space: t.owner.spaceId,
      name: 'Laser cutter',
      controlType: 'machine',
      ...body,
    });
    expect(res.statusCode).toBe(201);
    return res.json();
  }
  async function withAgent(resource: { id: number }) {
    expect((await api(owner, 'PUT', `/resources/${resource.id}/bridge`, {})).statusCode).toBe(200);
    const key = (await api(owner, 'GET', `/resources/${resource.id}/bridge/api-key`)).json().apiKey;
    const agent = await connectFakeAgent(mqttUrl, resource.id, key);
    agents.push(agent);
    await waitFor('the bridge online', () => t.hub.ctx.bridges.isOnline(resource.id));
    return agent;
  }

  it('sends resource_created/updated/deleted {resource} and bridge_created/deleted {bridge, resource}, each only to its category', async () => {
    const resources = await hook('resource');
    const bridges = await hook('bridge');
    const resource = await newResource({ name: 'Band saw' });
    const put = await api(owner, 'PUT', `/resources/${resource.id}`, {
      name: 'Big band saw',
      lockVersion: resource.lockVersion,
    });
    expect(put.statusCode).toBe(200);
    expect((await api(owner, 'PUT', `/resources/${resource.id}/bridge`, {})).statusCode).toBe(200);
    // Changing an existing bridge creates nothing.
    expect(
      (await api(owner, 'PUT', `/resources/${resource.id}/bridge`, { serialNumber: 'SN-1' })).statusCode,
    ).toBe(200);
    expect((await api(owner, 'DELETE', `/resources/${resource.id}/bridge`)).statusCode).toBe(204);
    expect((await api(owner, 'PUT', `/resources/${resource.id}/bridge`, {})).statusCode).toBe(200);
    // Deleting the resource deletes its bridge too.
    expect((await api(owner, 'DELETE', `/resources/${resource.id}`)).statusCode).toBe(204);

    const r = await received(resources, 3);
    expect(r.map((e) => e.type)).toEqual(['resource_created', 'resource_updated', 'resource_deleted']);
    expect(r[0].details.resource).toMatchObject({
      id: resource.id,
      name: 'Band saw',
      space: t.owner.spaceId,
    });
    expect(r[1].details.resource).toMatchObject({ id: resource.id, name: 'Big band saw', lockVersion: 2 });
    expect(r[2].details.resource).toMatchObject({ id: resource.id, name: 'Big band saw' });
    // The switch-on code stays in the hub.
    for (const e of r) expect(e.details.resource).not.toHaveProperty('switchOnCode');

    const b = await received(bridges, 4);
    expect(b.map((e) => e.type)).toEqual([
      'bridge_created',
      'bridge_deleted',
      'bridge_created',
      'bridge_deleted',
    ]);
    for (const e of b) {
      expect(Object.keys(e.details).sort()).toEqual(['bridge', 'resource']);
      expect(e.details.bridge).toMatchObject({ resource: resource.id, hasAPIKey: true });
      expect(e.details.resource).toMatchObject({ id: resource.id });
      expect(e.details.bridge).not.toHaveProperty('apiKey');
    }
    expect(b[1].details.bridge.serialNumber).toBe('SN-1');
  });

  it('sends nothing for changes that fail or roll back', async () => {
    const resources = await hook('resource');
    const bridges = await hook('bridge');
    const kept = await newResource({ name: 'Undeletable' });
    expect((await api(owner, 'PUT', `/resources/${kept.id}/bridge`, {})).statusCode).toBe(200);
    await received(resources, 1);
    await received(bridges, 1);

    // A create with an unknown resource type, and an update with a stale lockVersion.
    expect(await newResourceStatus({ name: 'Ghost', type: 999999 })).toBe(422);
    expect(
      (await api(owner, 'PUT', `/resources/${kept.id}`, { name: 'Stale', lockVersion: 99 })).statusCode,
    ).toBe(409);
    // A delete the database refuses after the events were written: they roll back with it.
    await refuseDeletesOf('Undeletable');
    try {
      expect((await api(owner, 'DELETE', `/resources/${kept.id}`)).statusCode).toBe(500);
    } finally {
      await allowDeletes();
    }
    expect((await api(owner, 'GET', `/resources/${kept.id}`)).statusCode).toBe(200);
    const marker = await newResource({ name: 'Marker' });
    await received(resources, 2);
    expect(types(resources)).toEqual(['resource_created', 'resource_created']);
    expect(resources.received[1].json.details.resource.id).toBe(marker.id);
    expect(types(bridges)).toEqual(['bridge_created']);
    // Not even stored: the rolled-back delete left no event in the outbox.
    const stored = await t.hub.ctx.db
      .selectFrom('webhook_events')
      .select('details')
      .where('type', 'in', ['resource_deleted', 'bridge_deleted'])
      .execute();
    expect(stored.map((e) => JSON.parse(e.details).resource.id)).not.toContain(kept.id);
  });

  async function newResourceStatus(body: Record<string, unknown>) {
    return (await api(owner, 'POST', '/resources', { space: t.owner.spaceId, ...body })).statusCode;
  }
  async function refuseDeletesOf(name: string) {
    const hub = t.hub.ctx.db;
    if (dialect === 'sqlite') {
      await sql
        .raw(
          `create trigger refuse_delete before delete on resources when old.name = '${name}' begin select raise(abort, 'refused'); end`,
        )
        .execute(hub);
    } else {
      await sql
        .raw(
          `create function refuse_delete() returns trigger as $$ begin if old.name = '${name}' then raise exception 'refused'; end if; return old; end $$ language plpgsql`,
        )
        .execute(hub);
      await sql
        .raw(
          'create trigger refuse_delete before delete on resources for each row execute function refuse_delete()',
        )
        .execute(hub);
    }
  }
  async function allowDeletes() {
    const hub = t.hub.ctx.db;
    if (dialect === 'sqlite') await sql.raw('drop trigger refuse_delete').execute(hub);
    else {
      await sql.raw('drop trigger refuse_delete on resources').execute(hub);
      await sql.raw('drop function refuse_delete()').execute(hub);
    }
  }

  it('sends resourceLog_created/updated {log, resource, member} for switch-on, switch-off, POST /resource-logs and agent logs', async () => {
    const logs = await hook('resourceLog');
    const machine = await newResource({ name: 'Lathe' });
    const agent = await withAgent(machine);
    const { member, token } = await memberWithToken();

    const wrong = await api(token, 'POST', `/resources/${machine.id}/switch-on`, { code: 'WRONGCODE22' });
    expect(wrong.statusCode).toBe(403);
    const on = await api(token, 'POST', `/resources/${machine.id}/switch-on`, { code: machine.switchOnCode });
    expect(on.statusCode).toBe(200);
    expect((await api(token, 'POST', `/resources/${machine.id}/bridge/switch-off`)).statusCode).toBe(201);
    const manual = await api(owner, 'POST', '/resource-logs', {
      resource: machine.id,
      type: 'allowed',
      member: member.id,
      createdAt: '2026-11-20T09:00:00.000Z',
      stoppedAt: '2026-11-20T09:10:00.000Z',
    });
    expect(manual.statusCode).toBe(201);
    const clientId = crypto.randomUUID();
    await agent.publish('logs', {
      items: [
        {
          kind: 'log',
          id: clientId,
          type: 'allowed',
          createdAt: '2026-11-20T10:00:00.000Z',
          memberId: member.id,
          offline: true,
        },
        {
          kind: 'stop',
          id: crypto.randomUUID(),
          sessionId: clientId,
          stopType: 'automatic',
          stoppedAt: '2026-11-20T10:30:00.000Z',
        },
      ],
    });

    const e = await received(logs, 6);
    expect(e.map((x) => x.type)).toEqual([
      'resourceLog_created',
      'resourceLog_created',
      'resourceLog_updated',
      'resourceLog_created',
      'resourceLog_created',
      'resourceLog_updated',
    ]);
    for (const x of e) {
      expect(Object.keys(x.details).sort()).toEqual(['log', 'member', 'resource']);
      expect(x.details.resource).toMatchObject({ id: machine.id, name: 'Lathe' });
      expect(x.details.member).toMatchObject({ id: member.id, firstName: member.firstName });
      expect(x.details.log.member).toBe(member.id);
    }
    expect(e[0].details.log).toMatchObject({ type: 'denied', reason: 'wrongCode' });
    expect(e[1].details.log).toMatchObject({ id: on.json().resourceLog, type: 'allowed', stoppedAt: null });
    expect(e[2].details.log).toMatchObject({ id: on.json().resourceLog, stopType: 'normal' });
    expect(e[2].details.log.stoppedAt).not.toBeNull();
    expect(e[3].details.log).toMatchObject({ id: manual.json().id, createdAt: '2026-11-20T09:00:00.000Z' });
    expect(e[4].details.log).toMatchObject({ type: 'allowed', offline: true, stoppedAt: null });
    expect(e[5].details.log).toMatchObject({
      id: e[4].details.log.id,
      stopType: 'automatic',
      stoppedAt: '2026-11-20T10:30:00.000Z',
    });
  });

  it('charges a stopped machine session once (switch-off through the API, then the agent resends the stop) and sends charge_created {charge, member}', async () => {
    const charges = await hook('charge');
    const machine = await newResource({ name: 'Laser', pricePerUsage: '2.50' });
    const agent = await withAgent(machine);
    const { member, token } = await memberWithToken();
    const on = await api(token, 'POST', `/resources/${machine.id}/switch-on`, { code: machine.switchOnCode });
    expect(on.statusCode).toBe(200);
    const logId = on.json().resourceLog;
    // Nothing is billed while the machine runs.
    expect((await api(owner, 'GET', `/charges?resourceLog=${logId}`)).json()).toEqual([]);
    expect((await api(token, 'POST', `/resources/${machine.id}/bridge/switch-off`)).statusCode).toBe(201);
    const stopId = crypto.randomUUID();
    await agent.publish('logs', {
      items: [
        {
          kind: 'stop',
          id: stopId,
          sessionId: String(logId),
          stopType: 'normal',
          stoppedAt: new Date().toISOString(),
        },
      ],
    });
    await waitFor('the stop ack', () => agent.acks.some((a) => a.includes(stopId)));

    const billed = (await api(owner, 'GET', `/charges?resourceLog=${logId}`)).json();
    expect(billed).toHaveLength(1);
    expect(billed[0]).toMatchObject({
      member: member.id,
      price: '2.50',
      resourceLog: logId,
      calculated: true,
    });
    const e = await received(charges, 1);
    expect(e.map((x) => x.type)).toEqual(['charge_created']);
    expect(e[0].details.charge).toMatchObject({ id: billed[0].id, price: '2.50', resourceLog: logId });
    expect(e[0].details.member).toMatchObject({ id: member.id });
  });

  it('charges a session the agent stops (ingest) in the same transaction as the stop', async () => {
    const machine = await newResource({ name: 'Mill', pricePerUsage: '1.00' });
    const agent = await withAgent(machine);
    const { member } = await memberWithToken();
    const id = crypto.randomUUID();
    const stop = {
      kind: 'stop' as const,
      id: crypto.randomUUID(),
      sessionId: id,
      stopType: 'automatic' as const,
      stoppedAt: '2026-11-20T12:20:00.000Z',
    };
    await agent.publish('logs', {
      items: [
        {
          kind: 'log',
          id,
          type: 'allowed',
          createdAt: '2026-11-20T12:00:00.000Z',
          memberId: member.id,
          offline: true,
        },
        stop,
      ],
    });
    await agent.publish('logs', { items: [stop] });
    await waitFor('two acks', () => agent.acks.filter((a) => a.includes(stop.id)).length >= 2);
    const log = (await api(owner, 'GET', `/resource-logs?resource=${machine.id}`)).json()[0];
    const billed = (await api(owner, 'GET', `/charges?resourceLog=${log.id}`)).json();
    expect(billed).toHaveLength(1);
    expect(billed[0]).toMatchObject({
      member: member.id,
      price: '1.00',
      dateTime: '2026-11-20T12:20:00.000Z',
    });
  });

  it('sends booking_created/updated {booking, resource, member} and charges the booking of a priced resource', async () => {
    const bookings = await hook('booking');
    const charges = await hook('charge');
    const resource = await newResource({
      name: 'Booked laser',
      canBeBooked: true,
      pricePerBooking: '4.00',
      pricePerBookingSeconds: 3600,
    });
    const member = await newMember();
    const day = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    const created = await api(owner, 'POST', '/bookings', {
      resource: resource.id,
      member: member.id,
      fromDateTime: `${day}T10:00:00.000Z`,
      untilDateTime: `${day}T12:00:00.000Z`,
    });
    expect(created.statusCode).toBe(201);
    const booking = created.json();
    expect(booking.charged).toBe(true);
    // An overlapping booking fails and sends nothing.
    const overlap = await api(owner, 'POST', '/bookings', {
      resource: resource.id,
      member: member.id,
      fromDateTime: `${day}T11:00:00.000Z`,
      untilDateTime: `${day}T13:00:00.000Z`,
    });
    expect(overlap.statusCode).toBeGreaterThanOrEqual(400);
    const cancelled = await api(owner, 'PUT', `/bookings/${booking.id}`, {
      state: 'cancelled',
      lockVersion: booking.lockVersion,
    });
    expect(cancelled.statusCode).toBe(200);

    const e = await received(bookings, 2);
    expect(e.map((x) => x.type)).toEqual(['booking_created', 'booking_updated']);
    for (const x of e) {
      expect(Object.keys(x.details).sort()).toEqual(['booking', 'member', 'resource']);
      expect(x.details.resource).toMatchObject({ id: resource.id, name: 'Booked laser' });
      expect(x.details.member).toMatchObject({ id: member.id });
    }
    expect(e[0].details.booking).toMatchObject({ id: booking.id, state: 'confirmed', charged: true });
    expect(e[1].details.booking).toMatchObject({ id: booking.id, state: 'cancelled' });

    const billed = (await api(owner, 'GET', `/charges?booking=${booking.id}`)).json();
    expect(billed).toHaveLength(1);
    expect(billed[0]).toMatchObject({ price: '8.00', member: member.id });
    const c = await received(charges, 1);
    expect(c.map((x) => x.type)).toEqual(['charge_created']);
    expect(c[0].details.charge).toMatchObject({ id: billed[0].id, booking: booking.id });
  });

  it('sends memberTraining_created/deleted {memberTraining, member}', async () => {
    const trainings = await hook('memberTraining');
    const course = (await api(owner, 'POST', '/training-courses', { title: 'Laser safety' })).json();
    const member = await newMember();
    // An unknown course fails and sends nothing.
    expect(
      (await api(owner, 'POST', `/members/${member.id}/trainings`, { trainingCourse: 999999 })).statusCode,
    ).toBe(422);
    const training = await api(owner, 'POST', `/members/${member.id}/trainings`, {
      trainingCourse: course.id,
    });
    expect(training.statusCode).toBe(201);
    expect(
      (await api(owner, 'DELETE', `/members/${member.id}/trainings/${training.json().id}`)).statusCode,
    ).toBe(204);
    const e = await received(trainings, 2);
    expect(e.map((x) => x.type)).toEqual(['memberTraining_created', 'memberTraining_deleted']);
    for (const x of e) {
      expect(x.details.memberTraining).toMatchObject({ id: training.json().id, trainingCourse: course.id });
      expect(x.details.member).toMatchObject({ id: member.id });
    }
  });

  it('sends memberPackage_created/updated/deleted {memberPackage, member, package}', async () => {
    const packages = await hook('memberPackage');
    const pkg = (await api(owner, 'POST', '/packages', { name: 'Weekend' })).json();
    const member = await newMember();
    const mp = await api(owner, 'POST', `/members/${member.id}/packages`, { package: pkg.id });
    expect(mp.statusCode).toBe(201);
    const put = await api(owner, 'PUT', `/members/${member.id}/packages/${mp.json().id}`, {
      notes: 'Student rate',
      lockVersion: mp.json().lockVersion,
    });
    expect(put.statusCode).toBe(200);
    expect((await api(owner, 'DELETE', `/members/${member.id}/packages/${mp.json().id}`)).statusCode).toBe(
      204,
    );
    const e = await received(packages, 3);
    expect(e.map((x) => x.type)).toEqual([
      'memberPackage_created',
      'memberPackage_updated',
      'memberPackage_deleted',
    ]);
    for (const x of e) {
      expect(Object.keys(x.details).sort()).toEqual(['member', 'memberPackage', 'package']);
      expect(x.details.memberPackage).toMatchObject({ id: mp.json().id, package: pkg.id });
      expect(x.details.member).toMatchObject({ id: member.id });
      expect(x.details.package).toMatchObject({ id: pkg.id, name: 'Weekend' });
    }
    expect(e[1].details.memberPackage.notes).toBe('Student rate');
  });

  it('sends memberCredit_created when a package grants a credit and memberCredit_updated when a session spends it', async () => {
    const credits = await hook('memberCredit');
    const pkg = (await api(owner, 'POST', '/packages', { name: 'Maker credit' })).json();
    await api(owner, 'POST', `/packages/${pkg.id}/permissions`, { type: 'everything' });
    const credit = (await api(owner, 'POST', `/packages/${pkg.id}/credits`)).json();
    const set = await api(owner, 'PUT', `/packages/${pkg.id}/credits/${credit.id}`, {
      ...credit,
      amount: '5',
      scope: 'usage',
    });
    expect(set.statusCode).toBe(200);
    const printer = (
      await api(owner, 'POST', '/resources', {
        space: t.owner.spaceId,
        name: 'Credit printer',
        pricePerUsage: '2',
      })
    ).json();
    const member = await newMember();
    expect((await api(owner, 'POST', `/members/${member.id}/packages`, { package: pkg.id })).statusCode).toBe(
      201,
    );

    const at = new Date();
    const log = await t.hub.ctx.db
      .insertInto('resource_logs')
      .values({
        account: t.owner.accountId,
        resource: printer.id,
        type: 'allowed',
        member: member.id,
        createdAt: new Date(at.getTime() - 60_000).toISOString(),
        stoppedAt: at.toISOString(),
        stopType: 'normal',
        updatedAt: at.toISOString(),
      } as any)
      .returning('id')
      .executeTakeFirstOrThrow();
    const bill = await t.hub.ctx.db
      .transaction()
      .execute((trx) => chargeForStoppedSession(trx, t.hub.ctx, log.id));
    expect(bill).toMatchObject({ creditUsed: '2.00' });

    const e = await received(credits, 2);
    expect(e.map((x) => x.type)).toEqual(['memberCredit_created', 'memberCredit_updated']);
    for (const x of e) {
      expect(Object.keys(x.details).sort()).toEqual(['member', 'memberCredit']);
      expect(x.details.member).toMatchObject({ id: member.id });
      expect(x.details.memberCredit).toMatchObject({ member: member.id, amount: '5.00', scope: 'usage' });
    }
    expect(e[0].details.memberCredit.remaining).toBe('5.00');
    expect(e[1].details.memberCredit.remaining).toBe('3.00');

    // Taking the package away takes its credits along.
    const [mp] = (await api(owner, 'GET', `/members/${member.id}/packages`)).json();
    expect((await api(owner, 'DELETE', `/members/${member.id}/packages/${mp.id}`)).statusCode).toBe(204);
    const all = await received(credits, 3);
    expect(all[2]).toMatchObject({
      type: 'memberCredit_deleted',
      details: {
        memberCredit: { id: e[0].details.memberCredit.id, remaining: '3.00' },
        member: { id: member.id },
      },
    });
  });

  it('sends charge_created/updated {charge, member} and invoice_created/updated {invoice, charges, member} through invoicing, payment and cancel', async () => {
    const charges = await hook('charge');
    const invoices = await hook('invoice');
    const member = await newMember();
    // No charges yet: the invoice fails and nothing is sent.
    expect((await api(owner, 'POST', '/invoices', { member: member.id })).statusCode).toBe(422);
    const charge = await api(owner, 'POST', '/charges', {
      member: member.id,
      description: 'Plywood',
      price: '12.00',
    });
    expect(charge.statusCode).toBe(201);
    const invoice = await api(owner, 'POST', '/invoices', { member: member.id });
    expect(invoice.statusCode).toBe(201);
    const inv = invoice.json();
    expect((await api(owner, 'POST', '/payments', { member: member.id, total: '12.00' })).statusCode).toBe(
      201,
    );
    expect((await api(owner, 'POST', `/invoices/${inv.id}/cancel`, {})).statusCode).toBe(200);

    const c = await received(charges, 3);
    expect(c.map((x) => x.type)).toEqual(['charge_created', 'charge_updated', 'charge_updated']);
    for (const x of c) {
      expect(x.details.charge).toMatchObject({ id: charge.json().id, price: '12.00' });
      expect(x.details.member).toMatchObject({ id: member.id });
    }
    expect(c[0].details.charge.invoice).toBeNull();
    expect(c[1].details.charge.invoice).toBe(inv.id);
    expect(c[2].details.charge.invoice).toBeNull();

    const i = await received(invoices, 3);
    expect(i.map((x) => x.type)).toEqual(['invoice_created', 'invoice_updated', 'invoice_updated']);
    for (const x of i) {
      expect(Object.keys(x.details).sort()).toEqual(['charges', 'invoice', 'member']);
      expect(x.details.invoice).toMatchObject({ id: inv.id, number: inv.number, total: '12.00' });
      expect(x.details.member).toMatchObject({ id: member.id });
      expect(x.details.charges.map((ch: any) => ch.id)).toEqual([charge.json().id]);
    }
    expect(i[0].details.invoice).toMatchObject({ state: 'unpaid', paid: '0.00' });
    expect(i[1].details.invoice).toMatchObject({ state: 'paid', paid: '12.00' });
    expect(i[2].details.invoice).toMatchObject({ state: 'cancelled' });
  });
});
