import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

/**
 * A local stand-in for the few Stripe API endpoints the hub calls, answering the shapes Stripe
 * documents (https://docs.stripe.com/api): customers, Checkout sessions, PaymentIntents,
 * SetupIntents and PaymentMethods. Like Stripe, a POST with an `Idempotency-Key` already seen
 * answers the first answer again (and makes nothing new). Tests say how a payment method
 * behaves (succeeds, is declined, is a SEPA debit that stays processing), read what was
 * charged, and build the events Stripe would send, signed with the package's own helper.
 *
 * Listens on 127.0.0.1 only. Point the hub at it with `stripeApiUrl: fake.url`.
 */

type Behaviour =
  | { outcome: 'succeed' }
  | { outcome: 'decline'; declineCode: string; message: string }
  | { outcome: 'processing' };

export interface FakePaymentMethod {
  id: string;
  type: 'card' | 'sepa_debit';
  last4: string;
  brand?: string;
  name?: string;
  behaviour: Behaviour;
}

export interface FakeIntent {
  id: string;
  amount: number;
  currency: string;
  customer: string | null;
  payment_method: string | null;
  status: string;
  metadata: Record<string, string>;
  idempotencyKey: string | null;
}

const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

/** Stripe's form encoding (`a[b][0][c]=1`) read into objects and arrays. */
export function parseStripeForm(text: string): Record<string, any> {
  const out: Record<string, any> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const path = key.replace(/\]/g, '').split('[');
    let node: any = out;
    for (const [i, part] of path.entries()) {
      const last = i === path.length - 1;
      if (last) node[part] = value;
      else {
        node[part] ??= /^\d+$/.test(path[i + 1]) ? [] : {};
        node = node[part];
      }
    }
  }
  return out;
}

export class FakeStripe {
  private server: Server | null = null;
  url = '';
  readonly customers = new Map<string, Record<string, any>>();
  readonly sessions = new Map<string, Record<string, any>>();
  readonly intents = new Map<string, FakeIntent>();
  readonly setupIntents = new Map<string, Record<string, any>>();
  readonly methods = new Map<string, FakePaymentMethod>();
  readonly detached = new Set<string>();
  /** Answers by idempotency key: status and body. */
  private readonly answered = new Map<string, { status: number; body: string }>();
  /** Every request: method, path, idempotency key, replayed or not. */
  readonly requests: { method: string; path: string; key: string | null; replayed: boolean }[] = [];
  /**
   * From this many PaymentIntents made on, Stripe "breaks": it makes the charge, but the
   * connection drops before the answer (the hub never hears). null: never.
   */
  breakAfterIntents: number | null = null;
  /**
   * From this many PaymentIntents made on, Stripe makes the charge and then never answers (the
   * request hangs until the hub goes away). null: never.
   */
  stallAfterIntents: number | null = null;
  private stallWaiters: (() => void)[] = [];
  /** Resolves once a PaymentIntent request has been left hanging. */
  stalled(): Promise<void> {
    return new Promise((resolve) => this.stallWaiters.push(resolve));
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((err) => {
        res.statusCode = 500;
        res.end(JSON.stringify({ error: { type: 'api_error', message: String(err) } }));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /** A payment method the tests hand out (as if the member typed it on Checkout). */
  addMethod(method: Omit<FakePaymentMethod, 'id'> & { id?: string }): FakePaymentMethod {
    const full = { id: method.id ?? newId('pm'), ...method };
    this.methods.set(full.id, full);
    return full;
  }

  /** PaymentIntents made (not replayed) for a hub invoice. */
  intentsOfInvoice(invoice: number): FakeIntent[] {
    return [...this.intents.values()].filter((i) => i.metadata.hubInvoice === String(invoice));
  }

  // ---- what Stripe's Checkout does when the member finishes --------------------------------

  /** The member paid on Checkout's page: the session reads complete and paid (a card). */
  paySession(sessionId: string, options: { sepa?: boolean } = {}): Record<string, any> {
    const session = this.sessions.get(sessionId);
    if (!session) throw new Error(`no session ${sessionId}`);
    const intent: FakeIntent = {
      id: newId('pi'),
      amount: session.amount_total,
      currency: session.currency,
      customer: session.customer,
      payment_method: null,
      status: options.sepa ? 'processing' : 'succeeded',
      metadata: session.payment_intent_data_metadata ?? {},
      idempotencyKey: null,
    };
    this.intents.set(intent.id, intent);
    Object.assign(session, {
      status: 'complete',
      payment_status: options.sepa ? 'unpaid' : 'paid',
      payment_intent: intent.id,
    });
    return { ...session };
  }

  /** The member saved a payment method on Checkout's setup page: the session is complete. */
  completeSetup(sessionId: string, method: FakePaymentMethod): Record<string, any> {
    const session = this.sessions.get(sessionId);
    if (!session) throw new Error(`no session ${sessionId}`);
    const setup = {
      id: newId('seti'),
      object: 'setup_intent',
      status: 'succeeded',
      customer: session.customer,
      payment_method: method.id,
      mandate: method.type === 'sepa_debit' ? newId('mandate') : null,
      usage: 'off_session',
      metadata: session.metadata ?? {},
    };
    this.setupIntents.set(setup.id, setup);
    Object.assign(session, { status: 'complete', setup_intent: setup.id });
    return { ...session };
  }

  /** A PaymentIntent as Stripe answers it (for events). */
  intentObject(id: string, changes: Record<string, unknown> = {}): Record<string, any> {
    const intent = this.intents.get(id);
    if (!intent) throw new Error(`no intent ${id}`);
    Object.assign(intent, changes);
    return this.intentJson(intent);
  }

  // ---- events --------------------------------------------------------------------------------

  /** An event as Stripe sends it, with its body text and the `Stripe-Signature` header. */
  static event(type: string, object: Record<string, unknown>, secret: string, id = newId('evt')) {
    const payload = JSON.stringify({
      id,
      object: 'event',
      api_version: '2026-10-28.endive',
      created: Math.floor(Date.now() / 1000),
      type,
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      data: { object },
    });
    const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret });
    return { id, payload, signature };
  }

  // ---- the API -------------------------------------------------------------------------------

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const key = (req.headers['idempotency-key'] as string | undefined) ?? null;
    const method = req.method ?? 'GET';
    if (!/^Bearer sk_test_/.test(req.headers.authorization ?? '')) {
      return this.send(res, 401, {
        error: { type: 'invalid_request_error', message: 'Invalid API Key provided' },
      });
    }
    if (method === 'POST' && key && this.answered.has(key)) {
      this.requests.push({ method, path: url.pathname, key, replayed: true });
      const first = this.answered.get(key)!;
      if (this.broken(url.pathname)) return void req.socket.destroy();
      res.setHeader('idempotent-replayed', 'true');
      res.writeHead(first.status, { 'content-type': 'application/json' });
      return void res.end(first.body);
    }
    this.requests.push({ method, path: url.pathname, key, replayed: false });
    const body = method === 'POST' ? parseStripeForm(Buffer.concat(chunks).toString('utf8')) : {};
    const query = parseStripeForm(url.search.slice(1));
    const [status, answer] = this.route(method, url.pathname, body, query);
    const text = JSON.stringify(answer);
    if (method === 'POST' && key) this.answered.set(key, { status, body: text });
    // Stripe made it, but the answer never reaches the hub.
    if (this.broken(url.pathname)) return void req.socket.destroy();
    if (
      url.pathname === '/v1/payment_intents' &&
      this.stallAfterIntents !== null &&
      this.intents.size > this.stallAfterIntents
    ) {
      for (const resolve of this.stallWaiters.splice(0)) resolve();
      return;
    }
    this.send(res, status, answer);
  }

  private broken(path: string): boolean {
    return (
      path === '/v1/payment_intents' &&
      this.breakAfterIntents !== null &&
      this.intents.size > this.breakAfterIntents
    );
  }

  private send(res: ServerResponse, status: number, body: unknown) {
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': newId('req') });
    res.end(JSON.stringify(body));
  }

  private route(
    method: string,
    path: string,
    body: Record<string, any>,
    query: Record<string, any>,
  ): [number, unknown] {
    const missing = (what: string, id: string): [number, unknown] => [
      404,
      {
        error: {
          type: 'invalid_request_error',
          code: 'resource_missing',
          message: `No such ${what}: '${id}'`,
        },
      },
    ];
    const setupMatch = method === 'GET' ? /^\/v1\/setup_intents\/([^/]+)$/.exec(path) : null;
    const methodMatch = method === 'GET' ? /^\/v1\/payment_methods\/([^/]+)$/.exec(path) : null;
    const detachMatch = method === 'POST' ? /^\/v1\/payment_methods\/([^/]+)\/detach$/.exec(path) : null;
    if (method === 'POST' && path === '/v1/customers') {
      const customer = {
        id: newId('cus'),
        object: 'customer',
        email: body.email ?? null,
        name: body.name ?? null,
        metadata: body.metadata ?? {},
      };
      this.customers.set(customer.id, customer);
      return [200, customer];
    }
    if (method === 'POST' && path === '/v1/checkout/sessions') {
      const line = body.line_items?.[0];
      const amount = line ? Number(line.price_data.unit_amount) * Number(line.quantity ?? 1) : null;
      const id = newId('cs_test');
      const session = {
        id,
        object: 'checkout.session',
        mode: body.mode,
        status: 'open',
        customer: body.customer ?? null,
        client_reference_id: body.client_reference_id ?? null,
        currency: line?.price_data.currency ?? body.currency ?? null,
        amount_total: amount,
        payment_status: body.mode === 'setup' ? 'no_payment_required' : 'unpaid',
        payment_intent: null,
        setup_intent: null,
        metadata: body.metadata ?? {},
        payment_intent_data_metadata: body.payment_intent_data?.metadata ?? {},
        allowed_payment_method_types: body.allowed_payment_method_types ?? null,
        success_url: body.success_url,
        cancel_url: body.cancel_url,
        url: `https://checkout.stripe.com/c/pay/${id}`,
      };
      this.sessions.set(id, session);
      const { payment_intent_data_metadata: _, ...shown } = session;
      return [200, shown];
    }
    if (method === 'POST' && path === '/v1/payment_intents') return this.createIntent(body);
    if (setupMatch) {
      const m = setupMatch;
      const setup = this.setupIntents.get(m[1]);
      if (!setup) return missing('setupintent', m[1]);
      const expand: string[] = Object.values(query.expand ?? {});
      const method = this.methods.get(setup.payment_method);
      return [
        200,
        expand.includes('payment_method') && method
          ? { ...setup, payment_method: this.methodJson(method) }
          : setup,
      ];
    }
    if (methodMatch) {
      const m = methodMatch;
      const found = this.methods.get(m[1]);
      return found ? [200, this.methodJson(found)] : missing('payment_method', m[1]);
    }
    if (detachMatch) {
      const m = detachMatch;
      const found = this.methods.get(m[1]);
      if (!found) return missing('payment_method', m[1]);
      this.detached.add(found.id);
      return [200, { ...this.methodJson(found), customer: null }];
    }
    return [
      404,
      { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path})` } },
    ];
  }

  private createIntent(body: Record<string, any>): [number, unknown] {
    const method = this.methods.get(body.payment_method);
    const intent: FakeIntent = {
      id: newId('pi'),
      amount: Number(body.amount),
      currency: body.currency,
      customer: body.customer ?? null,
      payment_method: body.payment_method ?? null,
      status: 'requires_payment_method',
      metadata: body.metadata ?? {},
      idempotencyKey: null,
    };
    if (!method || this.detached.has(method.id)) {
      return [
        400,
        {
          error: {
            type: 'invalid_request_error',
            code: 'resource_missing',
            message: `No such PaymentMethod: '${body.payment_method}'`,
          },
        },
      ];
    }
    this.intents.set(intent.id, intent);
    if (method.behaviour.outcome === 'decline') {
      const error = {
        type: 'card_error',
        code: 'card_declined',
        decline_code: method.behaviour.declineCode,
        message: method.behaviour.message,
        payment_intent: this.intentJson(intent),
      };
      (intent as any).last_payment_error = { ...error, payment_intent: undefined };
      return [402, { error: { ...error, payment_intent: this.intentJson(intent) } }];
    }
    intent.status = method.behaviour.outcome === 'processing' ? 'processing' : 'succeeded';
    return [200, this.intentJson(intent)];
  }

  private intentJson(intent: FakeIntent) {
    const { idempotencyKey: _, ...rest } = intent;
    return {
      object: 'payment_intent',
      amount_received: intent.status === 'succeeded' ? intent.amount : 0,
      last_payment_error: null,
      ...rest,
    };
  }

  private methodJson(method: FakePaymentMethod) {
    return {
      id: method.id,
      object: 'payment_method',
      type: method.type,
      billing_details: { name: method.name ?? null, email: null },
      card:
        method.type === 'card'
          ? { brand: method.brand ?? 'visa', last4: method.last4, exp_month: 12, exp_year: 2030 }
          : null,
      sepa_debit:
        method.type === 'sepa_debit' ? { last4: method.last4, bank_code: '37040044', country: 'DE' } : null,
    };
  }
}
