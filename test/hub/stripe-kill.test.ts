import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHubProcess, type HubProcess } from '../support/e2e.js';
import { eventually } from '../support/fake-agent.js';
import { FakeStripe } from '../support/fake-stripe.js';
import { stopAll } from '../support/processes.js';

const MEMBERS = 40;
/** Stripe makes this many charges, then the next one hangs: the hub is killed while it waits. */
const STALL_AFTER = 15;
const webhookSecret = 'whsec_killtest';

/**
 * A real hub process (SQLite) killed with SIGKILL in the middle of a billing run's charges, and
 * started again on the same data: the interrupted job is queued again, the charge Stripe made
 * but the hub never heard of is asked again with its idempotency key, and every member is
 * charged exactly once.
 */
describe('Stripe: a hub killed during the billing run’s charges', () => {
  let fake: FakeStripe;
  let hub: HubProcess;

  beforeAll(async () => {
    fake = await new FakeStripe().start();
  });
  afterAll(async () => {
    await stopAll();
    await fake?.stop();
  });

  const webhook = async (type: string, object: Record<string, unknown>) => {
    const event = FakeStripe.event(type, object, webhookSecret);
    const res = await fetch(`${hub.base}/stripe/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': event.signature },
      body: event.payload,
    });
    expect(res.status, await res.text()).toBe(200);
  };

  it('resumes after the restart without charging anyone twice', async () => {
    const env = { HUB_STRIPE_API_URL: fake.url };
    hub = await startHubProcess({ env });
    const me = (await hub.api('GET', '/user/me')).body;
    const path = `/spaces/${me.space}/billing-settings`;
    const settings = (await hub.api('GET', path)).body;
    expect(
      (
        await hub.api('PUT', path, {
          lockVersion: settings.lockVersion,
          stripeSecretKey: 'sk_test_killtest',
          stripeWebhookSecret: webhookSecret,
        })
      ).status,
    ).toBe(200);
    // Members with a charge each, who saved a card through Checkout (the admin opens it for them).
    for (let i = 0; i < MEMBERS; i++) {
      const member = (await hub.api('POST', '/members', { firstName: 'Member', lastName: String(i) })).body;
      expect(
        (await hub.api('POST', '/charges', { member: member.id, price: '9.00', description: 'Fee' })).status,
      ).toBe(201);
      const setup = (await hub.api('POST', `/members/${member.id}/payment-method/checkout`)).body;
      const card = fake.addMethod({ type: 'card', last4: '4242', behaviour: { outcome: 'succeed' } });
      await webhook('checkout.session.completed', fake.completeSetup(setup.id, card));
    }

    fake.stallAfterIntents = STALL_AFTER;
    const stalled = fake.stalled();
    const job = (await hub.api('POST', '/jobs', { type: 'invoiceRun' })).body;
    await stalled;
    // Killed while Stripe holds the charge it made.
    await hub.proc.stop('SIGKILL');
    expect(fake.intents.size).toBe(STALL_AFTER + 1);

    fake.stallAfterIntents = null;
    hub = await startHubProcess({
      dataDir: hub.dataDir,
      token: hub.token,
      env,
    });
    const done = await eventually(
      async () => {
        const state = (await hub.api('GET', `/jobs/${job.id}`)).body;
        return state.state === 'succeeded' || state.state === 'failed' ? state : null;
      },
      60_000,
      'the interrupted invoice run to finish after the restart',
    );
    expect(done.state, done.error).toBe('succeeded');
    expect(done.attempts).toBe(2);

    const invoices = (await hub.api('GET', '/invoices?limit=1000')).body as { id: number; state: string }[];
    expect(invoices).toHaveLength(MEMBERS);
    expect(invoices.every((i) => i.state === 'paid')).toBe(true);
    for (const invoice of invoices) expect(fake.intentsOfInvoice(invoice.id)).toHaveLength(1);
    expect(fake.intents.size).toBe(MEMBERS);
    // The charge made before the kill was asked again with its key and answered from Stripe's memory.
    expect(fake.requests.some((r) => r.replayed && r.path === '/v1/payment_intents')).toBe(true);
    const payments = (await hub.api('GET', '/payments?limit=1000')).body as { method: string }[];
    expect(payments.filter((p) => p.method === 'stripe')).toHaveLength(MEMBERS);
  }, 180_000);
});
