import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HubProcess, startHubProcess } from '../support/e2e.js';
import { eventually } from '../support/fake-agent.js';
import { stopAll } from '../support/processes.js';

/** A webhook delivery survives a hub process that is killed between attempts (issue 6). */
describe('webhook delivery across a killed hub process', () => {
  let hub: HubProcess;
  let server: Server;
  let port = 0;
  const received: { headers: IncomingHttpHeaders; body: string; answered: number }[] = [];

  beforeAll(async () => {
    // The receiver fails the first attempt and accepts every later one.
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        const answered = received.length === 0 ? 500 : 200;
        received.push({ headers: req.headers, body, answered });
        res.writeHead(answered).end(answered === 200 ? 'thanks' : 'not now');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
    hub = await startHubProcess({ env: { HUB_WEBHOOK_ALLOW_INSECURE: '1' } });
  });
  afterAll(async () => {
    await stopAll();
    await new Promise((resolve) => server.close(resolve));
  });

  it('retries after SIGKILL and restart, delivers once, with a valid signature', async () => {
    const created = await hub.api('POST', '/webhooks', {
      url: `http://127.0.0.1:${port}/hook`,
      categories: ['member'],
    });
    expect(created.status).toBe(201);
    const { id: webhookId, secret } = created.body;
    expect((await hub.api('POST', '/members', { firstName: 'Hook', lastName: 'Tester' })).status).toBe(201);

    // The first attempt fails and is recorded; then the hub dies without a chance to clean up.
    await eventually(
      async () => {
        const events = (await hub.api('GET', `/webhooks/${webhookId}/events`)).body;
        return events[0]?.delivery.attempts.length === 1;
      },
      10_000,
      'the first attempt recorded',
    );
    await hub.proc.stop('SIGKILL');

    hub = await startHubProcess({
      dataDir: hub.dataDir,
      httpPort: hub.httpPort,
      mqttPort: hub.mqttPort,
      token: hub.token,
      env: { HUB_WEBHOOK_ALLOW_INSECURE: '1' },
    });
    // The retry (after the first back-off of about 10 s) comes from the new process.
    await eventually(() => received.some((r) => r.answered === 200), 40_000, 'the retry');
    await new Promise((r) => setTimeout(r, 1_500));
    expect(received.map((r) => r.answered)).toEqual([500, 200]);
    const delivered = received[1];
    expect(delivered.headers['x-makerspace-event']).toBe('member_created');
    expect(delivered.headers['x-makerspace-delivery']).toBe(received[0].headers['x-makerspace-delivery']);
    const expected = createHmac('sha256', secret)
      .update(`${delivered.headers['x-makerspace-timestamp']}.${delivered.body}`)
      .digest('hex');
    expect(delivered.headers['x-makerspace-signature']).toBe(`sha256=${expected}`);
    expect(JSON.parse(delivered.body)).toMatchObject({
      type: 'member_created',
      details: { member: { firstName: 'Hook' } },
    });
    const events = (await hub.api('GET', `/webhooks/${webhookId}/events`)).body;
    expect(events[0].delivery).toMatchObject({ state: 'delivered' });
    expect(events[0].delivery.attempts.map((a: any) => a.statusCode)).toEqual([500, 200]);
  }, 90_000);
});
