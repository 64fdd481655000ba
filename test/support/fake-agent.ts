import { type BridgeMessage, bridgeClientId, bridgeTopic, type Command } from '@makerspace/shared';
import mqtt, { type MqttClient } from 'mqtt';

export interface FakeAgent {
  client: MqttClient;
  commands: Command[];
  acks: string[][];
  /** Whether it answers commands (set false to test the hub's timeout). */
  answering: boolean;
  relay: 'on' | 'off';
  publish<N extends 'status' | 'state' | 'replies' | 'logs' | 'access'>(
    name: N,
    message: BridgeMessage<N>,
  ): Promise<void>;
  close(): Promise<void>;
}

/** A bridge played by the test over a real MQTT connection: answers commands like an agent. */
export async function connectFakeAgent(url: string, resourceId: number, apiKey: string): Promise<FakeAgent> {
  const client = mqtt.connect(url, {
    clientId: bridgeClientId(resourceId),
    username: String(resourceId),
    password: apiKey,
    reconnectPeriod: 0,
    keepalive: 5,
    will: {
      topic: bridgeTopic(resourceId, 'status'),
      payload: Buffer.from('{"online":false}'),
      qos: 1,
      retain: true,
    },
  });
  client.on('connect', () => (client.stream as { setNoDelay?: (on: boolean) => void }).setNoDelay?.(true));
  await new Promise<void>((resolve, reject) => {
    client.once('connect', () => resolve());
    client.once('error', reject);
  });
  const agent: FakeAgent = {
    client,
    commands: [],
    acks: [],
    answering: true,
    relay: 'off',
    publish: (name, message) =>
      new Promise((resolve, reject) =>
        client.publish(bridgeTopic(resourceId, name), JSON.stringify(message), { qos: 1 }, (err) =>
          err ? reject(err) : resolve(),
        ),
      ),
    close: () => new Promise((resolve) => client.end(true, {}, () => resolve())),
  };
  client.on('message', (topic, payload) => {
    const message = JSON.parse(payload.toString());
    if (topic.endsWith('/commands')) {
      agent.commands.push(message);
      if (!agent.answering) return;
      agent.relay = message.type === 'switchOff' ? 'off' : 'on';
      // A reply still in flight when the test closes the connection is simply lost.
      agent
        .publish('replies', {
          id: message.id,
          ok: true,
          state: {
            relay: agent.relay,
            since: new Date().toISOString(),
            sessionId: message.sessionId ?? null,
          },
        })
        .catch(() => {});
    } else if (topic.endsWith('/logs/ack')) {
      agent.acks.push(message.ids);
    }
  });
  await client.subscribeAsync(
    [
      bridgeTopic(resourceId, 'commands'),
      bridgeTopic(resourceId, 'logs/ack'),
      bridgeTopic(resourceId, 'config'),
    ],
    { qos: 1 },
  );
  await agent.publish('status', {
    online: true,
    agentVersion: 'test',
    hardware: 'fake relay',
    startedAt: new Date().toISOString(),
  });
  return agent;
}

/** Polls until `check` returns a truthy value, or fails after `ms`. */
export async function eventually<T>(check: () => Promise<T> | T, ms = 5_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${last}` : ''}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
