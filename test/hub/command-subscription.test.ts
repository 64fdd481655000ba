import { bridgeClientId, bridgeTopic } from '@makerspace/shared';
import mqtt from 'mqtt';
import { afterEach, expect, it } from 'vitest';
import { eventually } from '../support/fake-agent.js';
import { startTestHub, type TestHub } from '../support/hub.js';

const hubs: TestHub[] = [];
const clients: mqtt.MqttClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.end(true);
  for (const h of hubs.splice(0)) await h.close();
});

/**
 * A bridge reads online from its CONNECT on and subscribes to its commands just after (its
 * session starts clean). A switch-on in that moment must wait for the subscription, not publish
 * a command nobody receives and answer 504 five seconds later.
 */
it('a switch-on sent between a bridge’s connect and its subscription reaches it', async () => {
  const t = await startTestHub('sqlite');
  hubs.push(t);
  const { mqttUrl } = await t.listen();
  const api = (method: string, url: string, payload?: object) =>
    t.call(t.owner.token, { method: method as 'GET', url: `/api/v1${url}`, ...(payload ? { payload } : {}) });
  const resource = (
    await api('POST', '/resources', { space: t.owner.spaceId, name: 'Laser', controlType: 'machine' })
  ).json();
  await api('PUT', `/resources/${resource.id}/bridge`, {});
  const apiKey = (await api('GET', `/resources/${resource.id}/bridge/api-key`)).json().apiKey;

  const client = mqtt.connect(mqttUrl, {
    clientId: bridgeClientId(resource.id),
    username: String(resource.id),
    password: apiKey,
    reconnectPeriod: 0,
    clean: true,
  });
  clients.push(client);
  await new Promise<void>((resolve, reject) => {
    client.once('connect', () => resolve());
    client.once('error', reject);
  });
  await eventually(
    async () => (await api('GET', `/resources/${resource.id}/bridge`)).json().offline === false,
    5_000,
    'the bridge online',
  );

  // An admin switches the machine on (no code needed) while the bridge has not subscribed yet.
  const started = Date.now();
  const answer = api('POST', `/resources/${resource.id}/switch-on`, {});
  await new Promise((r) => setTimeout(r, 300));
  client.on('message', (topic, payload) => {
    if (!topic.endsWith('/commands')) return;
    const command = JSON.parse(payload.toString());
    client.publish(
      bridgeTopic(resource.id, 'replies'),
      JSON.stringify({
        id: command.id,
        ok: true,
        state: { relay: 'on', since: new Date().toISOString(), sessionId: command.sessionId ?? null },
      }),
      { qos: 1 },
    );
  });
  await client.subscribeAsync(bridgeTopic(resource.id, 'commands'), { qos: 1 });

  const res = await answer;
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json().state).toBe('on');
  expect(Date.now() - started).toBeLessThan(3_000);
}, 15_000);
