import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/dialects.js';
import { type FakePaymentMethod, FakeStripe } from '../support/fake-stripe.js';
import { startTestHub, type TestHub } from '../support/hub.js';

/** Wednesday 2026-03-04 10:00 UTC. */
const clock = { current: new Date('2026-03-04T10:00:00.000Z'), now: () => clock.current };
const webhookSecret = 'whsec_chargesecret';

describeEachDialect('Stripe: saved payment methods charged by the billing run', (dialect) => {
  let t: TestHub;
  let fake: FakeStripe;
  let owner: string;
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
  const send = async (type: string, object: Record<string, unknown>) => {
    const event = FakeStripe.event(type, object, webhookSecret);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/stripe/webhook',
      headers: { 'content-type': 'application/json', 'stripe-signature': event.signature },
      payload: event.payload,
    });
    expect(res.statusCode, res.body).toBe(200);
  };
  /** The member saves a payment method through Checkout's setup page. */
  const saveMethod = async (member: { id: number; token: string }, method: FakePaymentMethod) => {
    const res = await api(member.token, 'POST', `/members/${member.id}/payment-method/checkout`);
    expect(res.statusCode, res.body).toBe(200);
    const session = fake.sessions.get(res.json().id)!;
    expect(session.mode).toBe('setup');
    await send('checkout.session.completed', fake.completeSetup(session.id, method));
  };
  const charge = async (member: number, price: string) =>
    expect(
      (await api(owner, 'POST', '/charges', { member, price, description: '3D printing' })).statusCode,
    ).toBe(201);
  /** An invoice run (POST /jobs), run to its end: the job as it finished. */
  const invoiceRun = async (member?: number) => {
    const queued = await api(owner, 'POST', '/jobs', { type: 'invoiceRun', ...(member ? { member } : {}) });
    expect(queued.statusCode, queued.body).toBe(202);
    await t.hub.jobs.runDue();
    return (await api(owner, 'GET', `/jobs/${queued.json().id}`)).json();
  };
  const invoicesOf = async (member: number) =>
    (await api(owner, 'GET', `/invoices?member=${member}`)).json() as any[];
  const attemptsOf = async (token: string, invoice: number) =>
    (await api(token, 'GET', `/invoices/${invoice}/stripe-payments`)).json() as any[];

  beforeAll(async () => {
    clock.current = new Date('2026-03-04T10:00:00.000Z');
    fake = await new FakeStripe().start();
    t = await startTestHub(dialect, { clock, settings: { stripeApiUrl: fake.url } });
    owner = t.owner.token;
    await t.hub.jobs.stop();
    const path = `/spaces/${t.owner.spaceId}/billing-settings`;
    const current = (await api(owner, 'GET', path)).json();
    const res = await api(owner, 'PUT', path, {
      lockVersion: current.lockVersion,
      stripeSecretKey: 'sk_test_charges',
      stripeWebhookSecret: webhookSecret,
    });
    expect(res.statusCode, res.body).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
    await fake?.stop();
  });

  it('saves a card through Checkout; the billing run charges it exactly once', async () => {
    const ada = await newMember('Ada');
    const card = fake.addMethod({
      type: 'card',
      brand: 'visa',
      last4: '4242',
      name: 'Ada Test',
      behaviour: { outcome: 'succeed' },
    });
    await saveMethod(ada, card);
    const method = (await api(ada.token, 'GET', `/members/${ada.id}/payment-method`)).json();
    expect(method).toMatchObject({
      type: 'card',
      cardBrand: 'visa',
      cardLast4: '4242',
      accountOwnerName: 'Ada Test',
    });
    expect(JSON.stringify(method)).not.toContain(card.id);
    expect(
      (await api(ada.token, 'GET', `/members/${ada.id}/online-payments`)).json().paymentMethod,
    ).toMatchObject({
      type: 'card',
      brand: 'visa',
      last4: '4242',
    });

    await charge(ada.id, '18.40');
    const job = await invoiceRun(ada.id);
    expect(job).toMatchObject({ state: 'succeeded', result: { payments: { charged: 1, failed: 0 } } });
    const [invoice] = await invoicesOf(ada.id);
    expect(invoice).toMatchObject({ state: 'paid', paid: '18.40' });
    const intents = fake.intentsOfInvoice(invoice.id);
    expect(intents).toHaveLength(1);
    expect(intents[0]).toMatchObject({
      amount: 1840,
      currency: 'eur',
      payment_method: card.id,
      status: 'succeeded',
    });
    expect(fake.customers.has(intents[0].customer!)).toBe(true);

    // Stripe's event of the same charge, and another run: still one charge, one payment.
    await send('payment_intent.succeeded', fake.intentObject(intents[0].id));
    await invoiceRun(ada.id);
    expect(fake.intentsOfInvoice(invoice.id)).toHaveLength(1);
    const payments = (await api(owner, 'GET', `/payments?member=${ada.id}`)).json();
    expect(payments).toMatchObject([{ method: 'stripe', total: '18.40', invoices: [invoice.id] }]);
    expect(await attemptsOf(ada.token, invoice.id)).toMatchObject([
      { kind: 'charge', attempt: 1, state: 'succeeded' },
    ]);
  });

  it('records a declined charge with Stripe’s reason, and tries again after three days', async () => {
    const bob = await newMember('Bob');
    const card = fake.addMethod({
      type: 'card',
      last4: '9995',
      behaviour: {
        outcome: 'decline',
        declineCode: 'insufficient_funds',
        message: 'Your card has insufficient funds.',
      },
    });
    await saveMethod(bob, card);
    await charge(bob.id, '12.00');
    const job = await invoiceRun(bob.id);
    expect(job.result.payments).toEqual({ charged: 0, processing: 0, failed: 1 });
    const [invoice] = await invoicesOf(bob.id);
    expect(invoice.state).toBe('unpaid');
    const [attempt] = await attemptsOf(bob.token, invoice.id);
    expect(attempt).toMatchObject({
      kind: 'charge',
      attempt: 1,
      state: 'failed',
      failureCode: 'insufficient_funds',
      failureMessage: 'Your card has insufficient funds.',
      retryAfter: '2026-03-07T10:00:00.000Z',
    });
    // Not due yet: nothing is charged.
    await invoiceRun(bob.id);
    expect(fake.intentsOfInvoice(invoice.id)).toHaveLength(1);
    // Three days later the hourly retry charges it again (and the member topped up their card).
    card.behaviour = { outcome: 'succeed' };
    clock.current = new Date('2026-03-07T11:00:00.000Z');
    await t.hub.jobs.tick();
    expect(fake.intentsOfInvoice(invoice.id)).toHaveLength(2);
    expect((await invoicesOf(bob.id))[0].state).toBe('paid');
    expect((await attemptsOf(bob.token, invoice.id)).map((a) => [a.attempt, a.state])).toEqual([
      [1, 'failed'],
      [2, 'succeeded'],
    ]);
  });

  it('does not retry a decline that needs another payment method', async () => {
    const cy = await newMember('Cy');
    const card = fake.addMethod({
      type: 'card',
      last4: '0069',
      behaviour: { outcome: 'decline', declineCode: 'expired_card', message: 'Your card has expired.' },
    });
    await saveMethod(cy, card);
    await charge(cy.id, '7.00');
    await invoiceRun(cy.id);
    const [invoice] = await invoicesOf(cy.id);
    expect(await attemptsOf(cy.token, invoice.id)).toMatchObject([
      { state: 'failed', failureCode: 'expired_card', retryAfter: null },
    ]);
  });

  it('charges a SEPA mandate: processing until Stripe’s webhook tells the result', async () => {
    const dee = await newMember('Dee');
    const sepa = fake.addMethod({
      type: 'sepa_debit',
      last4: '3000',
      name: 'Dee Test',
      behaviour: { outcome: 'processing' },
    });
    await saveMethod(dee, sepa);
    const method = (await api(dee.token, 'GET', `/members/${dee.id}/payment-method`)).json();
    expect(method).toMatchObject({
      type: 'sepa',
      iban: null,
      accountOwnerName: 'Dee Test',
      mandateDate: '2026-03-07',
    });
    expect(method.mandateReference).toMatch(/^mandate_/);

    await charge(dee.id, '40.00');
    await charge(dee.id, '2.00'); // on the same invoice
    const job = await invoiceRun(dee.id);
    expect(job.result.payments).toEqual({ charged: 0, processing: 1, failed: 0 });
    const [invoice] = await invoicesOf(dee.id);
    expect(invoice.state).toBe('unpaid');
    // Processing: another run does not charge it again, nor may the member pay it meanwhile.
    await invoiceRun(dee.id);
    const payNow = await api(dee.token, 'POST', `/invoices/${invoice.id}/checkout`);
    expect(payNow.statusCode).toBe(409);
    expect(payNow.json().data).toEqual({ paymentUnderWay: true });
    const [intent] = fake.intentsOfInvoice(invoice.id);
    expect(fake.intentsOfInvoice(invoice.id)).toHaveLength(1);
    // The debit bounced.
    await send(
      'payment_intent.payment_failed',
      fake.intentObject(intent.id, {
        status: 'requires_payment_method',
        last_payment_error: {
          type: 'card_error',
          code: 'insufficient_funds',
          message: 'The account has insufficient funds.',
        },
      }),
    );
    expect(await attemptsOf(dee.token, invoice.id)).toMatchObject([
      {
        state: 'failed',
        failureCode: 'insufficient_funds',
        failureMessage: 'The account has insufficient funds.',
      },
    ]);
    // Its retry three days later goes through.
    sepa.behaviour = { outcome: 'processing' };
    clock.current = new Date('2026-03-10T12:00:00.000Z');
    await t.hub.jobs.tick();
    const second = fake.intentsOfInvoice(invoice.id);
    expect(second).toHaveLength(2);
    await send('payment_intent.succeeded', fake.intentObject(second[1].id, { status: 'succeeded' }));
    expect((await invoicesOf(dee.id))[0]).toMatchObject({ state: 'paid', paid: '42.00' });
  });

  it('removes the saved method (detached at Stripe): the billing run charges nothing', async () => {
    const eve = await newMember('Eve');
    const card = fake.addMethod({ type: 'card', last4: '1111', behaviour: { outcome: 'succeed' } });
    await saveMethod(eve, card);
    const removed = await api(eve.token, 'DELETE', `/members/${eve.id}/payment-method/stripe`);
    expect(removed.statusCode).toBe(204);
    expect(fake.detached.has(card.id)).toBe(true);
    expect(
      (await api(eve.token, 'GET', `/members/${eve.id}/online-payments`)).json().paymentMethod,
    ).toBeNull();
    await charge(eve.id, '5.00');
    await invoiceRun(eve.id);
    const [invoice] = await invoicesOf(eve.id);
    expect(invoice.state).toBe('unpaid');
    expect(fake.intentsOfInvoice(invoice.id)).toHaveLength(0);
  });

  it('changes the saved method: the new one is charged', async () => {
    const fay = await newMember('Fay');
    const old = fake.addMethod({ type: 'card', last4: '1234', behaviour: { outcome: 'succeed' } });
    const newer = fake.addMethod({
      type: 'card',
      brand: 'mastercard',
      last4: '4444',
      behaviour: { outcome: 'succeed' },
    });
    await saveMethod(fay, old);
    await saveMethod(fay, newer);
    expect((await api(fay.token, 'GET', `/members/${fay.id}/payment-method`)).json()).toMatchObject({
      cardBrand: 'mastercard',
      cardLast4: '4444',
    });
    await charge(fay.id, '3.00');
    await invoiceRun(fay.id);
    const [invoice] = await invoicesOf(fay.id);
    expect(fake.intentsOfInvoice(invoice.id).map((i) => i.payment_method)).toEqual([newer.id]);
  });
});
