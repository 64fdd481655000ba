import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleHub, startConsoleHub } from '../support/admin-console.js';
import { browserTestsEnabled, launchChromium, phone, signInWithPassword } from '../support/browser.js';
import { FakeStripe } from '../support/fake-stripe.js';
import { stopAll } from '../support/processes.js';

const webhookSecret = 'whsec_homepage';

/**
 * A member's home page with online payment (a real hub, Chromium, a local stand-in of Stripe):
 * Pay now, Top up and the saved payment method appear only once the space has Stripe, and each
 * sends the member to Stripe's Checkout page (answered here by the test: no request leaves the
 * machine).
 */
describe.runIf(browserTestsEnabled())('home page: invoices and online payment in Chromium', () => {
  let browser: Browser;
  let started: ConsoleHub;
  let fake: FakeStripe;
  let ada: { context: BrowserContext; page: Page };
  let adaId = 0;
  const password = 'chisel-beech-8812';
  const adaPassword = 'mortise-oak-3307';
  const invoices = { open: 0, paid: 0 };

  const api = (method: string, path: string, body?: unknown) => started.hub.api(method, path, body);
  const webhook = async (type: string, object: Record<string, unknown>) => {
    const event = FakeStripe.event(type, object, webhookSecret);
    const res = await fetch(`${started.hub.base}/stripe/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': event.signature },
      body: event.payload,
    });
    expect(res.status).toBe(200);
  };
  /** Clicks and waits until the page is on Stripe's Checkout; answers the session's id. */
  const toCheckout = async (page: Page, click: () => Promise<void>) => {
    await click();
    await page.waitForURL(/^https:\/\/checkout\.stripe\.com\/c\/pay\//);
    return page.url().split('/').at(-1)!;
  };

  beforeAll(async () => {
    fake = await new FakeStripe().start();
    started = await startConsoleHub(password, { HUB_STRIPE_API_URL: fake.url });
    const member = (
      await api('POST', '/members', {
        firstName: 'Ada',
        lastName: 'Lovelace',
        emailAddress: 'ada@home-pay.example',
      })
    ).body;
    adaId = member.id;
    const key = (await api('POST', '/api-keys', { member: adaId })).body;
    const token = (await api('GET', `/api-keys/${key.id}/token`)).body.token;
    expect((await started.hub.api('PUT', '/user/password', { password: adaPassword }, token)).status).toBe(
      204,
    );
    // A paid invoice (by hand) and an open one.
    await api('POST', '/charges', { member: adaId, price: '8.00', description: 'Laser, 20 min' });
    invoices.paid = (await api('POST', '/invoices', { member: adaId, date: '2026-10-31' })).body.id;
    await api('POST', '/payments', {
      member: adaId,
      total: '8.00',
      method: 'cash',
      invoices: [invoices.paid],
    });
    await api('POST', '/charges', { member: adaId, price: '23.50', description: 'Membership November' });
    invoices.open = (await api('POST', '/invoices', { member: adaId, date: '2026-11-30' })).body.id;
    browser = await launchChromium();
    ada = await phone(browser);
    // Stripe's Checkout page, answered here: the browser reaches nothing but the hub.
    await ada.context.route('https://checkout.stripe.com/**', (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>Stripe Checkout</h1>' }),
    );
    await signInWithPassword(ada.page, started.web, 'ada@home-pay.example', adaPassword, '/');
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await stopAll();
    await fake?.stop();
  });

  it('lists open and past invoices with their PDF, and offers no online payment before Stripe is set up', async () => {
    const { page } = ada;
    const open = page.getByTestId('open-invoices');
    await expect.poll(() => open.textContent()).toContain('€23.50 to pay');
    const past = page.getByTestId('past-invoices');
    await expect.poll(() => past.textContent()).toContain('€8.00 · paid');
    expect(await open.getByRole('link', { name: 'PDF' }).getAttribute('href')).toBe(
      `/api/v1/invoices/${invoices.open}/pdf`,
    );
    expect(await past.getByRole('link', { name: 'PDF' }).getAttribute('href')).toBe(
      `/api/v1/invoices/${invoices.paid}/pdf`,
    );
    expect(await page.getByRole('button', { name: 'Pay now' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Top up' }).count()).toBe(0);
    expect(await page.getByTestId('payment-method').count()).toBe(0);
  });

  it('pays an open invoice through Checkout once Stripe is set up', async () => {
    const path = `/spaces/${started.owner.space}/billing-settings`;
    const { lockVersion } = (await api('GET', path)).body;
    expect(
      (
        await api('PUT', path, {
          lockVersion,
          stripePublicKey: 'pk_test_home',
          stripeSecretKey: 'sk_test_home',
          stripeWebhookSecret: webhookSecret,
        })
      ).status,
    ).toBe(200);
    const { page } = ada;
    await page.goto(`${started.web}/`);
    const session = await toCheckout(page, () => page.getByRole('button', { name: 'Pay now' }).click());
    expect(fake.sessions.get(session)).toMatchObject({ amount_total: 2350, mode: 'payment' });
    // Paid on Stripe's page; Stripe tells the hub, and sends the member back.
    await webhook('checkout.session.completed', fake.paySession(session));
    await page.goto(`${started.web}/?stripe=paid`);
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Thank you');
    await expect.poll(() => page.getByTestId('past-invoices').textContent()).toContain('€23.50 · paid');
    expect(await page.getByTestId('open-invoices').count()).toBe(0);
  });

  it('tops up the prepaid balance', async () => {
    const { page } = ada;
    await page.goto(`${started.web}/`);
    await expect.poll(() => page.getByTestId('balance').textContent()).toBe('€0.00');
    await page.getByLabel('Amount (EUR)').fill('15');
    const session = await toCheckout(page, () => page.getByRole('button', { name: 'Top up' }).click());
    expect(fake.sessions.get(session)).toMatchObject({ amount_total: 1500 });
    await webhook('checkout.session.completed', fake.paySession(session));
    await page.goto(`${started.web}/`);
    await expect.poll(() => page.getByTestId('balance').textContent()).toBe('€15.00');
  });

  it('saves, shows, changes and removes the payment method', async () => {
    const { page } = ada;
    await page.goto(`${started.web}/`);
    const method = page.getByTestId('payment-method');
    await expect.poll(() => method.textContent()).toContain('None saved');
    const session = await toCheckout(page, () =>
      page.getByRole('button', { name: 'Add card or SEPA mandate' }).click(),
    );
    const card = fake.addMethod({
      type: 'card',
      brand: 'visa',
      last4: '4242',
      behaviour: { outcome: 'succeed' },
    });
    await webhook('checkout.session.completed', fake.completeSetup(session, card));
    await page.goto(`${started.web}/?stripe=saved`);
    await expect.poll(() => method.textContent()).toBe('Visa ending 4242');
    // Change opens Checkout's setup page again.
    const again = await toCheckout(page, () => page.getByRole('button', { name: 'Change' }).click());
    expect(fake.sessions.get(again)?.mode).toBe('setup');
    await page.goto(`${started.web}/`);
    await page.getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('button', { name: 'Yes, remove' }).click();
    await expect.poll(() => method.textContent()).toContain('None saved');
    expect(fake.detached.has(card.id)).toBe(true);
  });
  it('shows why the billing run’s charge of the saved card failed, and when it is tried again', async () => {
    const { page } = ada;
    await page.goto(`${started.web}/`);
    const session = await toCheckout(page, () =>
      page.getByRole('button', { name: 'Add card or SEPA mandate' }).click(),
    );
    const card = fake.addMethod({
      type: 'card',
      brand: 'mastercard',
      last4: '9995',
      behaviour: {
        outcome: 'decline',
        declineCode: 'insufficient_funds',
        message: 'Your card has insufficient funds.',
      },
    });
    await webhook('checkout.session.completed', fake.completeSetup(session, card));
    await api('POST', '/charges', { member: adaId, price: '30.00', description: 'Membership December' });
    const job = (await api('POST', '/jobs', { type: 'invoiceRun' })).body;
    await expect
      .poll(async () => (await api('GET', `/jobs/${job.id}`)).body.state, { timeout: 20_000 })
      .toBe('succeeded');
    await page.goto(`${started.web}/`);
    const failure = page.getByTestId('payment-failure');
    await expect
      .poll(() => failure.textContent())
      .toContain('The last payment failed: Your card has insufficient funds.');
    expect(await failure.textContent()).toMatch(/tried again on \d{1,2} [A-Z][a-z]{2} \d{4}\./);
    await expect.poll(() => page.getByTestId('payment-method').textContent()).toBe('Mastercard ending 9995');
  }, 60_000);
});
