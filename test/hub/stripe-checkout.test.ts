import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect } from '../support/dialects.js';
import { FakeStripe } from '../support/fake-stripe.js';
import { startTestHub, type TestHub } from '../support/hub.js';

/** Wednesday 2026-03-04 10:00 UTC. */
const clock = { current: new Date('2026-03-04T10:00:00.000Z'), now: () => clock.current };
const secretKey = 'sk_test_4eC39HqLyjWDarjtT1zdp7dc';
const webhookSecret = 'whsec_testsecret123';

describeEachDialect('Stripe: settings, Checkout and webhooks', (dialect) => {
  let t: TestHub;
  let fake: FakeStripe;
  let owner: string;
  let maker: { id: number; token: string };
  let other: { id: number; token: string };
  const api = (token: string, method: string, url: string, payload?: unknown) =>
    t.call(token, {
      method: method as 'GET',
      url: `/api/v1${url}`,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const newMember = async (firstName: string) => {
    const m = (
      await api(owner, 'POST', '/members', {
        firstName,
        lastName: 'Test',
        emailAddress: `${firstName.toLowerCase()}@test.example`,
      })
    ).json();
    const key = (await api(owner, 'POST', '/api-keys', { member: m.id })).json();
    const token = (await api(owner, 'GET', `/api-keys/${key.id}/token`)).json().token;
    return { id: m.id as number, token: token as string };
  };
  const invoiceFor = async (member: number, price: string) => {
    expect(
      (await api(owner, 'POST', '/charges', { member, price, description: 'Laser time' })).statusCode,
    ).toBe(201);
    const res = await api(owner, 'POST', '/invoices', { member });
    expect(res.statusCode).toBe(201);
    return res.json();
  };
  const settingsPath = () => `/spaces/${t.owner.spaceId}/billing-settings`;
  const putSettings = async (body: Record<string, unknown>) => {
    const current = (await api(owner, 'GET', settingsPath())).json();
    return api(owner, 'PUT', settingsPath(), { lockVersion: current.lockVersion, ...body });
  };
  const webhook = (payload: string, signature: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/stripe/webhook',
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      payload,
    });
  const send = async (type: string, object: Record<string, unknown>, id?: string) => {
    const event = FakeStripe.event(type, object, webhookSecret, id);
    const res = await webhook(event.payload, event.signature);
    expect(res.statusCode, res.body).toBe(200);
    return { event, res };
  };
  const paymentsOf = async (member: number) =>
    (await api(owner, 'GET', `/payments?member=${member}`)).json() as any[];
  const balanceOf = async (member: number) =>
    (await api(owner, 'GET', `/members/${member}/balance-items`)).json().balance as string;

  beforeAll(async () => {
    fake = await new FakeStripe().start();
    t = await startTestHub(dialect, { clock, settings: { stripeApiUrl: fake.url } });
    owner = t.owner.token;
    await t.hub.jobs.stop();
    maker = await newMember('Maker');
    other = await newMember('Other');
  });
  afterAll(async () => {
    await t?.close();
    await fake?.stop();
  });

  describe('before Stripe is set up', () => {
    it('tells the member online payment is off and refuses a checkout with 409', async () => {
      const flag = await api(maker.token, 'GET', `/members/${maker.id}/online-payments`);
      expect(flag.statusCode).toBe(200);
      expect(flag.json()).toMatchObject({ enabled: false, paymentMethod: null });
      const res = await api(maker.token, 'POST', `/members/${maker.id}/balance/checkout`, {
        amount: '10.00',
      });
      expect(res.statusCode).toBe(409);
      expect(res.json().data).toEqual({ stripeNotConfigured: true });
      expect(fake.requests).toHaveLength(0);
    });
  });

  describe('billing settings', () => {
    it('refuses a malformed secret key with 422 naming the field, and stores nothing', async () => {
      const res = await putSettings({ stripeSecretKey: 'pk_test_oops' });
      expect(res.statusCode).toBe(422);
      expect(res.json().message).toContain('stripeSecretKey');
      expect((await api(owner, 'GET', settingsPath())).json().stripeSecretKeySet).toBe(false);
    });

    it('stores the secret key and webhook secret sealed and never answers them', async () => {
      const res = await putSettings({
        stripePublicKey: 'pk_test_abc',
        stripeSecretKey: secretKey,
        stripeWebhookSecret: webhookSecret,
      });
      expect(res.statusCode, res.body).toBe(200);
      const record = (await api(owner, 'GET', settingsPath())).json();
      expect(record).toMatchObject({ stripeSecretKeySet: true, stripeWebhookSecretSet: true });
      const text = JSON.stringify(record) + res.body;
      expect(text).not.toContain(secretKey);
      expect(text).not.toContain(webhookSecret);
      const row = await t.hub.ctx.db
        .selectFrom('space_billing_settings')
        .select(['stripeSecretKey', 'stripeWebhookSecret'])
        .where('space', '=', t.owner.spaceId)
        .executeTakeFirstOrThrow();
      expect(row.stripeSecretKey).not.toContain('sk_test');
      expect(t.hub.ctx.tokens.open(row.stripeSecretKey!)).toBe(secretKey);
      expect(t.hub.ctx.tokens.open(row.stripeWebhookSecret!)).toBe(webhookSecret);
      // Members read the flag, not the settings.
      expect((await api(maker.token, 'GET', settingsPath())).statusCode).toBe(403);
      expect((await api(maker.token, 'GET', `/members/${maker.id}/online-payments`)).json()).toMatchObject({
        enabled: true,
        publishableKey: 'pk_test_abc',
        currency: 'EUR',
      });
    });
  });

  describe('paying an invoice', () => {
    it('opens Checkout for the open amount, and the webhook marks the invoice paid with a stripe payment', async () => {
      const invoice = await invoiceFor(maker.id, '42.50');
      const res = await api(maker.token, 'POST', `/invoices/${invoice.id}/checkout`);
      expect(res.statusCode, res.body).toBe(200);
      const { id, url } = res.json();
      expect(url).toMatch(/^https:\/\/checkout\.stripe\.com\//);
      const session = fake.sessions.get(id)!;
      expect(session).toMatchObject({ mode: 'payment', amount_total: 4250, currency: 'eur' });
      expect(session.allowed_payment_method_types).toEqual(['card', 'sepa_debit']);
      expect(fake.customers.get(session.customer)).toMatchObject({ email: 'maker@test.example' });

      const completed = fake.paySession(id);
      const { event } = await send('checkout.session.completed', completed);
      const after = (await api(maker.token, 'GET', `/invoices/${invoice.id}`)).json();
      expect(after).toMatchObject({ state: 'paid', paid: '42.50', totalPayable: '0.00' });
      const payments = await paymentsOf(maker.id);
      expect(payments).toHaveLength(1);
      expect(payments[0]).toMatchObject({
        method: 'stripe',
        total: '42.50',
        state: 'completed',
        invoices: [invoice.id],
      });

      // Stripe sends the same event again, and then the payment intent's own event: once.
      await send('checkout.session.completed', completed, event.id);
      await send('payment_intent.succeeded', fake.intentObject(completed.payment_intent));
      expect(await paymentsOf(maker.id)).toHaveLength(1);
      expect((await api(maker.token, 'GET', `/invoices/${invoice.id}`)).json().paid).toBe('42.50');

      // Paid: nothing left to pay.
      const again = await api(maker.token, 'POST', `/invoices/${invoice.id}/checkout`);
      expect(again.statusCode).toBe(409);
    });

    it('refuses a bad signature with 400 and changes nothing', async () => {
      const invoice = await invoiceFor(other.id, '10.00');
      const { id } = (await api(other.token, 'POST', `/invoices/${invoice.id}/checkout`)).json();
      const completed = fake.paySession(id);
      const forged = FakeStripe.event('checkout.session.completed', completed, 'whsec_someoneelse');
      const res = await webhook(forged.payload, forged.signature);
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toContain('signature');
      // Signed right, but the body changed on the way.
      const good = FakeStripe.event('checkout.session.completed', completed, webhookSecret);
      const tampered = good.payload.replace('"paid"', '"PAID"');
      expect((await webhook(tampered, good.signature)).statusCode).toBe(400);
      expect((await webhook(good.payload, '')).statusCode).toBe(400);
      expect((await api(owner, 'GET', `/invoices/${invoice.id}`)).json().state).toBe('unpaid');
      expect(await paymentsOf(other.id)).toHaveLength(0);
      const seen = await t.hub.ctx.db.selectFrom('stripe_events').select('eventId').execute();
      expect(seen.map((e) => e.eventId)).not.toContain(good.id);
    });

    it('answers 200 to an event type it does not use, and changes nothing', async () => {
      const before = await paymentsOf(other.id);
      const { res } = await send('customer.created', { id: 'cus_x', object: 'customer', metadata: {} });
      expect(res.json()).toMatchObject({ received: true, ignored: true });
      expect(await paymentsOf(other.id)).toEqual(before);
    });

    it('forgets handled event ids after 30 days and keeps the newer ones', async () => {
      const events = async () =>
        (await t.hub.ctx.db.selectFrom('stripe_events').select('eventId').execute()).map((e) => e.eventId);
      const day = 24 * 3600_000;
      await t.hub.ctx.db
        .insertInto('stripe_events')
        .values(
          [31, 29].map((days) => ({
            eventId: `evt_${days}_days_ago`,
            account: t.owner.accountId,
            type: 'payment_intent.succeeded',
            receivedAt: new Date(clock.current.getTime() - days * day).toISOString(),
          })),
        )
        .execute();
      const before = await events();
      // The events of the tests above, received today, are among them.
      expect(before.length).toBeGreaterThan(2);
      await t.hub.stripeEventPurge.check();
      expect((await events()).sort()).toEqual(before.filter((id) => id !== 'evt_31_days_ago').sort());
    });

    it('does not open another member’s invoice for a plain member (404); an admin may', async () => {
      const invoice = await invoiceFor(other.id, '5.00');
      expect((await api(maker.token, 'POST', `/invoices/${invoice.id}/checkout`)).statusCode).toBe(404);
      const res = await api(owner, 'POST', `/invoices/${invoice.id}/checkout`);
      expect(res.statusCode).toBe(200);
      // The session is the invoice's member's, not the admin's.
      const session = fake.sessions.get(res.json().id)!;
      expect(fake.customers.get(session.customer)).toMatchObject({ email: 'other@test.example' });
    });

    it('records a refund: the payment shrinks and the invoice is open again', async () => {
      const invoice = await invoiceFor(maker.id, '30.00');
      const { id } = (await api(maker.token, 'POST', `/invoices/${invoice.id}/checkout`)).json();
      const completed = fake.paySession(id);
      await send('checkout.session.completed', completed);
      expect((await api(owner, 'GET', `/invoices/${invoice.id}`)).json().state).toBe('paid');
      const charge = {
        id: 'ch_refund1',
        object: 'charge',
        payment_intent: completed.payment_intent,
        amount: 3000,
        amount_refunded: 1000,
        refunded: false,
        metadata: {},
      };
      const { event } = await send('charge.refunded', charge);
      await send('charge.refunded', charge, event.id);
      const after = (await api(owner, 'GET', `/invoices/${invoice.id}`)).json();
      expect(after).toMatchObject({ state: 'unpaid', paid: '20.00' });
      const payment = (await paymentsOf(maker.id)).find((p) => p.invoices.includes(invoice.id));
      expect(payment).toMatchObject({ total: '20.00', method: 'stripe' });
      expect(payment.notes).toContain('10.00 EUR refunded');
    });
  });

  describe('payment requests', () => {
    it('asks for a pending payment with a Checkout link; paid, the pending payment is completed', async () => {
      const member = await newMember('Requested');
      const pending = await api(owner, 'POST', '/payments', {
        member: member.id,
        total: '12.00',
        state: 'pending',
      });
      expect(pending.statusCode, pending.body).toBe(201);
      const req = await api(owner, 'POST', `/payments/${pending.json().id}/request-payment`);
      expect(req.statusCode, req.body).toBe(200);
      expect(req.json()).toMatchObject({ provider: 'stripe', state: 'requested' });
      const url = /https:\/\/checkout\.stripe\.com\/c\/pay\/(\S+)/.exec(req.json().instructions);
      expect(url).not.toBeNull();
      const session = fake.sessions.get(url![1])!;
      expect(session.amount_total).toBe(1200);
      await send('checkout.session.completed', fake.paySession(session.id));
      const payments = await paymentsOf(member.id);
      expect(payments).toMatchObject([
        { id: pending.json().id, state: 'completed', method: 'stripe', total: '12.00' },
      ]);
      const request = await t.hub.ctx.db
        .selectFrom('payment_requests')
        .select('state')
        .where('payment', '=', pending.json().id)
        .executeTakeFirstOrThrow();
      expect(request.state).toBe('paid');
      expect(await balanceOf(member.id)).toBe('12.00');
    });
  });

  describe('topping up the balance', () => {
    it('opens Checkout for the amount; when paid, the balance grows by it', async () => {
      const member = await newMember('Topper');
      expect(await balanceOf(member.id)).toBe('0.00');
      const res = await api(member.token, 'POST', `/members/${member.id}/balance/checkout`, {
        amount: '25.00',
      });
      expect(res.statusCode, res.body).toBe(200);
      const session = fake.sessions.get(res.json().id)!;
      expect(session.amount_total).toBe(2500);
      await send('checkout.session.completed', fake.paySession(session.id));
      expect(await balanceOf(member.id)).toBe('25.00');
      expect(await paymentsOf(member.id)).toMatchObject([{ method: 'stripe', total: '25.00', invoices: [] }]);
    });

    it('refuses an amount out of range or malformed, naming the field', async () => {
      const count = fake.sessions.size;
      for (const amount of ['0.50', '20000.00']) {
        const res = await api(maker.token, 'POST', `/members/${maker.id}/balance/checkout`, { amount });
        expect(res.statusCode).toBe(422);
        expect(res.json().message).toContain('amount');
      }
      const bad = await api(maker.token, 'POST', `/members/${maker.id}/balance/checkout`, { amount: 'ten' });
      expect(bad.statusCode).toBe(400);
      expect(bad.body).toContain('amount');
      expect(
        (await api(maker.token, 'POST', `/members/${other.id}/balance/checkout`, { amount: '5.00' }))
          .statusCode,
      ).toBe(404);
      expect(fake.sessions.size).toBe(count);
    });

    it('leaves the balance alone when the SEPA debit of a top-up is still processing, and records it when it succeeds', async () => {
      const member = await newMember('Sepa');
      const { id } = (
        await api(member.token, 'POST', `/members/${member.id}/balance/checkout`, { amount: '15.00' })
      ).json();
      const completed = fake.paySession(id, { sepa: true });
      await send('checkout.session.completed', completed);
      expect(await balanceOf(member.id)).toBe('0.00');
      await send(
        'payment_intent.succeeded',
        fake.intentObject(completed.payment_intent, { status: 'succeeded' }),
      );
      expect(await balanceOf(member.id)).toBe('15.00');
    });
  });

  describe('another Stripe account', () => {
    it('makes the member a new customer when the space’s secret key changes', async () => {
      const member = await newMember('Mover');
      const first = (
        await api(member.token, 'POST', `/members/${member.id}/balance/checkout`, { amount: '5.00' })
      ).json();
      const before = fake.sessions.get(first.id)!.customer;
      expect((await putSettings({ stripeSecretKey: 'sk_test_anotheraccount' })).statusCode).toBe(200);
      const second = (
        await api(member.token, 'POST', `/members/${member.id}/balance/checkout`, { amount: '5.00' })
      ).json();
      const after = fake.sessions.get(second.id)!.customer;
      expect(after).not.toBe(before);
      // The same account again: the customer kept for it.
      const third = (
        await api(member.token, 'POST', `/members/${member.id}/balance/checkout`, { amount: '5.00' })
      ).json();
      expect(fake.sessions.get(third.id)!.customer).toBe(after);
    });
  });
});
