import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/dialects.js';
import { FakeStripe } from '../support/fake-stripe.js';
import { startTestHub, type TestHub } from '../support/hub.js';

const clock = { current: new Date('2026-03-04T10:00:00.000Z'), now: () => clock.current };
const MEMBERS = 1000;
/** Stripe makes this many charges, then the next one's answer never arrives (the hub stops). */
const BREAK_AFTER = 400;

describeEachDialect('Stripe: a billing run of 1,000 saved methods, interrupted halfway', (dialect) => {
  let t: TestHub;
  let fake: FakeStripe;
  let owner: string;
  const api = (method: string, url: string, payload?: unknown) =>
    t.call(owner, {
      method: method as 'GET',
      url: `/api/v1${url}`,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const invoiceRun = async () => {
    const queued = await api('POST', '/jobs', { type: 'invoiceRun' });
    expect(queued.statusCode, queued.body).toBe(202);
    await t.hub.jobs.runDue();
    return (await api('GET', `/jobs/${queued.json().id}`)).json();
  };
  const count = async (table: 'invoices' | 'payments', where?: [string, string]) => {
    let query = t.hub.ctx.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n'));
    if (where) query = query.where(where[0] as any, '=', where[1]);
    return Number((await query.executeTakeFirstOrThrow()).n);
  };

  beforeAll(async () => {
    fake = await new FakeStripe().start();
    t = await startTestHub(dialect, { clock, settings: { stripeApiUrl: fake.url } });
    owner = t.owner.token;
    await t.hub.jobs.stop();
    const path = `/spaces/${t.owner.spaceId}/billing-settings`;
    const current = (await api('GET', path)).json();
    expect(
      (
        await api('PUT', path, {
          lockVersion: current.lockVersion,
          stripeSecretKey: 'sk_test_billingrun',
          stripeWebhookSecret: 'whsec_billingrun',
        })
      ).statusCode,
    ).toBe(200);
    // 1,000 members, each with a charge and a card saved at Stripe (written directly: the
    // Checkout flow that saves one is covered in stripe-charges.test.ts).
    const at = clock.now().toISOString();
    const stamps = { createdAt: at, updatedAt: at, updatedBy: null };
    const { accountId, spaceId } = t.owner;
    const members = await t.hub.ctx.db
      .insertInto('members')
      .values(
        Array.from({ length: MEMBERS }, (_, i) => ({
          account: accountId,
          space: spaceId,
          firstName: 'Member',
          lastName: String(i + 1),
          emailAddress: null,
          emailKey: null,
          memberNumber: null,
          ...stamps,
        })) as any,
      )
      .returning('id')
      .execute();
    await t.hub.ctx.db
      .insertInto('charges')
      .values(
        members.map((m) => ({
          account: accountId,
          member: m.id,
          dateTime: '2026-03-01T10:00:00',
          description: 'Membership March',
          price: '25.00',
          invoice: null,
          booking: null,
          resourceLog: null,
          memberPackage: null,
          feeKey: null,
          ...stamps,
        })),
      )
      .execute();
    await t.hub.ctx.db
      .insertInto('member_payment_details')
      .values(
        members.map((m) => {
          const card = fake.addMethod({ type: 'card', last4: '4242', behaviour: { outcome: 'succeed' } });
          return {
            account: accountId,
            member: m.id,
            paymentAccount: null,
            paymentMethod: JSON.stringify({
              type: 'card',
              cardBrand: 'visa',
              cardLast4: '4242',
              provider: 'stripe',
              stripeCustomer: `cus_member${m.id}`,
              stripePaymentMethod: card.id,
              stripeType: 'card',
              last4: '4242',
            }),
            ...stamps,
          };
        }),
      )
      .execute();
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await fake?.stop();
  });

  it('charges every member exactly once, also when Stripe stops answering halfway and the run is started again', async () => {
    fake.breakAfterIntents = BREAK_AFTER;
    const first = await invoiceRun();
    // Every invoice is made; the charges stop where Stripe stopped answering.
    expect(first.state).toBe('failed');
    expect(first.error).toContain('Stripe did not answer');
    expect(await count('invoices')).toBe(MEMBERS);
    expect(await count('invoices', ['state', 'paid'])).toBe(BREAK_AFTER);
    // Stripe made one more charge than the hub heard of: its row waits, `started`.
    expect(fake.intents.size).toBe(BREAK_AFTER + 1);
    const started = await t.hub.ctx.db
      .selectFrom('stripe_payments')
      .selectAll()
      .where('state', '=', 'started')
      .execute();
    expect(started).toHaveLength(1);

    // Stripe is back; the admin starts the run again.
    fake.breakAfterIntents = null;
    const second = await invoiceRun();
    expect(second.state, second.error).toBe('succeeded');
    expect(second.result).toMatchObject({
      invoices: [],
      payments: { charged: MEMBERS - BREAK_AFTER, failed: 0 },
    });

    // The unanswered charge was asked again with its key: Stripe answered the one it made.
    const replays = fake.requests.filter((r) => r.replayed && r.key === started[0].idempotencyKey);
    expect(replays.length).toBeGreaterThan(0);
    expect(fake.intents.size).toBe(MEMBERS);
    const perInvoice = new Map<string, number>();
    for (const intent of fake.intents.values()) {
      perInvoice.set(intent.metadata.hubInvoice, (perInvoice.get(intent.metadata.hubInvoice) ?? 0) + 1);
    }
    expect(perInvoice.size).toBe(MEMBERS);
    expect([...perInvoice.values()].every((n) => n === 1)).toBe(true);
    expect(await count('invoices', ['state', 'paid'])).toBe(MEMBERS);
    expect(await count('payments', ['method', 'stripe'])).toBe(MEMBERS);

    // A third run finds nothing to charge.
    const third = await invoiceRun();
    expect(third.result.payments).toEqual({ charged: 0, processing: 0, failed: 0 });
    expect(fake.intents.size).toBe(MEMBERS);
  }, 300_000);
});
