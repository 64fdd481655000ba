import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectFakeAgent, eventually, type FakeAgent } from '../support/fake-agent.js';
import { startTestHub, type TestHub } from '../support/hub.js';
import { startReceiver } from './webhooks-helpers.js';

const METRICS_TOKEN = 'prometheus-scrape-token-0123456789';

/** The value of one sample line, e.g. metric('x_total{outcome="switched"}'). */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('observability: /health, /ready and /metrics', () => {
  let t: TestHub;
  let urls: Awaited<ReturnType<TestHub['listen']>>;
  const agents: FakeAgent[] = [];

  beforeAll(async () => {
    t = await startTestHub('sqlite', {
      settings: { metricsToken: METRICS_TOKEN, webhookAllowInsecure: true },
    });
    urls = await t.listen();
  });
  afterAll(async () => {
    for (const a of agents) await a.close();
    await t?.close();
  });

  const api = (method: string, url: string, payload?: unknown, token = t.owner.token) =>
    t.call(token, {
      method: method as any,
      url: `/api/v1${url}`,
      ...(payload ? { payload: payload as any } : {}),
    });
  const scrape = async () => {
    const res = await t.app.inject({
      url: '/metrics',
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.body;
  };

  it('answers /metrics only with its token, in constant time, and never with an API token', async () => {
    expect((await t.app.inject({ url: '/metrics' })).statusCode).toBe(401);
    const wrong = await t.app.inject({ url: '/metrics', headers: { authorization: 'Bearer not-the-token' } });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
    const apiToken = await t.app.inject({
      url: '/metrics',
      headers: { authorization: `Bearer ${t.owner.token}` },
    });
    expect(apiToken.statusCode).toBe(401);
    expect(await scrape()).toMatch(/^# HELP makerspace_http_requests_total/m);
  });

  it('counts requests by route pattern and status, switch-ons by outcome with their latency, bridges online and log ingest', async () => {
    const door = (
      await api('POST', '/resources', { space: t.owner.spaceId, name: 'Door', controlType: 'door' })
    ).json();
    await api('PUT', `/resources/${door.id}/bridge`, {});
    const key = (await api('GET', `/resources/${door.id}/bridge/api-key`)).json().apiKey;
    const before = await scrape();
    expect(sample(before, 'makerspace_bridges_online')).toBe(0);

    const agent = await connectFakeAgent(urls.mqttUrl, door.id, key);
    agents.push(agent);
    await eventually(async () => sample(await scrape(), 'makerspace_bridges_online') === 1, 5000, 'online');

    expect(
      (await api('POST', `/resources/${door.id}/switch-on`, { code: door.switchOnCode })).statusCode,
    ).toBe(200);
    expect((await api('POST', `/resources/${door.id}/switch-on`, { code: 'WRONGCODE' })).statusCode).toBe(
      403,
    );
    expect((await api('GET', '/resources/999999')).statusCode).toBe(404);

    await agent.publish('logs', {
      items: [
        {
          kind: 'log',
          id: crypto.randomUUID(),
          type: 'allowed',
          createdAt: new Date().toISOString(),
          offline: true,
        },
      ],
    });
    await eventually(() => agent.acks.length === 1, 5000, 'log ack');

    const text = await scrape();
    expect(sample(text, 'makerspace_switch_ons_total{outcome="switched"}')).toBe(1);
    expect(sample(text, 'makerspace_switch_ons_total{outcome="wrongCode"}')).toBe(1);
    expect(sample(text, 'makerspace_switch_on_duration_seconds_count{outcome="switched"}')).toBe(1);
    expect(sample(text, 'makerspace_switch_on_duration_seconds_sum{outcome="switched"}')).toBeGreaterThan(0);
    expect(
      sample(
        text,
        'makerspace_http_requests_total{method="POST",route="/api/v1/resources/:resourceId/switch-on",status="200"}',
      ),
    ).toBe(1);
    // By pattern, not by id: unbounded label values would blow up Prometheus.
    expect(
      sample(
        text,
        'makerspace_http_requests_total{method="GET",route="/api/v1/resources/:resourceId",status="404"}',
      ),
    ).toBe(1);
    expect(text).not.toContain('/resources/999999');
    expect(sample(text, 'makerspace_bridge_logs_ingested_total')).toBe(1);
    expect(sample(text, 'makerspace_bridge_messages_queued')).toBe(0);
    expect(sample(text, 'makerspace_webhook_deliveries_total{outcome="delivered"}')).toBeUndefined();
    expect(text).toMatch(/^makerspace_hub_process_resident_memory_bytes /m);
    // Nothing secret in the metrics.
    expect(text).not.toContain(key);
    expect(text).not.toContain(door.switchOnCode);
  });

  it('counts webhook deliveries by outcome', async () => {
    const receiver = await startReceiver(() => ({ status: 500 }));
    try {
      const hook = await api('POST', '/webhooks', {
        url: receiver.url,
        categories: ['member'],
        label: 'metrics',
      });
      expect(hook.statusCode).toBe(201);
      await api('POST', '/members', { firstName: 'Webhook', lastName: 'Metric' });
      await eventually(
        async () =>
          (sample(await scrape(), 'makerspace_webhook_deliveries_total{outcome="failed"}') ?? 0) >= 1,
        5000,
        'a failed attempt',
      );
    } finally {
      await receiver.close();
    }
  });

  it('documents /health and /ready in the OpenAPI document, without credentials', async () => {
    const doc = (await t.app.inject({ url: '/api/v1/openapi.json' })).json();
    expect(doc.paths['/health'].get.security).toEqual([]);
    expect(doc.paths['/ready'].get.security).toEqual([]);
    expect(doc.paths['/ready'].get.responses).toHaveProperty('503');
  });

  it('/health says the process lives; /ready checks the database and the broker and says 503 when one fails', async () => {
    expect((await t.app.inject({ url: '/health' })).json()).toEqual({ ok: true });
    const ready = await t.app.inject({ url: '/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ ok: true, checks: { database: 'ok', broker: 'ok' } });
    expect(await t.hub.healthy()).toBe(true);
    await t.hub.broker.stop();
    // The same check stops the systemd watchdog's pings (main.ts).
    expect(await t.hub.healthy()).toBe('broker failing');
    const down = await t.app.inject({ url: '/ready' });
    expect(down.statusCode).toBe(503);
    expect(down.json()).toEqual({ ok: false, checks: { database: 'ok', broker: 'failing' } });
    expect((await t.app.inject({ url: '/health' })).statusCode).toBe(200);
  });
});

describe('observability without a metrics token', () => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub('sqlite');
  });
  afterAll(async () => t?.close());

  it('has no /metrics at all (404), so nothing leaks by default', async () => {
    expect((await t.app.inject({ url: '/metrics' })).statusCode).toBe(404);
  });

  it('/ready fails when the database does not answer', async () => {
    await t.hub.ctx.storage.close();
    const res = await t.app.inject({ url: '/ready' });
    expect(res.statusCode).toBe(503);
    expect(res.json().checks.database).toBe('failing');
  });
});
