import { randomUUID } from 'node:crypto';
import { bridgeClientId, bridgeTopic, type Command, type LogItem } from '@makerspace/shared';
import mqtt, { type MqttClient } from 'mqtt';

/**
 * Many bridges in one process, for benchmarks: each connects like the agent does, answers
 * commands at once (a simulated relay that switches instantly), and on request publishes log
 * batches and counts the acknowledged ones, or card taps and relay changes at a fixed rate.
 * Driven by lines on stdin, reports on stdout.
 */
interface Bridge {
  resourceId: number;
  apiKey: string;
}

const url = process.argv[2];
const bridges: Bridge[] = JSON.parse(process.argv[3]);
const clients: MqttClient[] = [];
let acked = 0;

function connect({ resourceId, apiKey }: Bridge): Promise<MqttClient> {
  const client = mqtt.connect(url, {
    clientId: bridgeClientId(resourceId),
    username: String(resourceId),
    password: apiKey,
    reconnectPeriod: 1000,
    keepalive: 30,
  });
  // Like the agent: no Nagle delay on the tiny command and reply packets.
  client.on('connect', () => (client.stream as { setNoDelay?: (on: boolean) => void }).setNoDelay?.(true));
  client.on('message', (topic, payload) => {
    if (topic.endsWith('/commands')) {
      const command = JSON.parse(payload.toString()) as Command;
      const state = {
        relay: command.type === 'switchOff' ? 'off' : 'on',
        since: new Date().toISOString(),
        sessionId: command.sessionId ?? null,
      };
      client.publish(
        bridgeTopic(resourceId, 'replies'),
        JSON.stringify({ id: command.id, ok: true, state }),
        { qos: 1 },
      );
    } else if (topic.endsWith('/logs/ack')) {
      const { ids } = JSON.parse(payload.toString()) as { ids: string[] };
      acked += ids.length;
      client.emit('acked' as any);
    }
  });
  return new Promise((resolve, reject) => {
    client.once('connect', async () => {
      await client.subscribeAsync(
        [bridgeTopic(resourceId, 'commands'), bridgeTopic(resourceId, 'logs/ack')],
        { qos: 1 },
      );
      client.publish(
        bridgeTopic(resourceId, 'status'),
        JSON.stringify({
          online: true,
          agentVersion: 'bench',
          hardware: 'instant relay',
          startedAt: new Date().toISOString(),
        }),
        { qos: 1, retain: true },
      );
      resolve(client);
    });
    client.once('error', reject);
  });
}

function publishState(client: MqttClient, resourceId: number, state: object): void {
  client.publish(bridgeTopic(resourceId, 'state'), JSON.stringify(state), { qos: 1, retain: true });
}

/**
 * `rate` events a second for `seconds`, on a fixed schedule (event k at start + k / rate), taking
 * turns: a tap of an unknown card (a denied log in the admins' feed, named by its card number)
 * and a relay switching on (a resource's state), each at the next bridge in turn. `states`: relay
 * changes only, each bridge's relay going on and off in turn. Answers when each event was
 * published (epoch milliseconds), to match with what a page shows.
 */
async function events(rate: number, seconds: number, kinds: 'both' | 'states') {
  const sent: { kind: 'tap' | 'state'; resource: number; card?: string; at: number }[] = [];
  const total = Math.round(rate * seconds);
  const start = performance.now();
  let tapAt = 0;
  let stateAt = 0;
  for (let k = 0; k < total; k++) {
    const wait = start + (k * 1000) / rate - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (kinds === 'both' && k % 2 === 0) {
      const i = tapAt++ % clients.length;
      const card = `BE${k.toString(16).toUpperCase().padStart(8, '0')}`;
      clients[i].publish(
        bridgeTopic(bridges[i].resourceId, 'access'),
        JSON.stringify({ id: randomUUID(), keys: [{ type: 'em4102', token: card }], currentSession: null }),
        { qos: 1 },
      );
      sent.push({ kind: 'tap', resource: bridges[i].resourceId, card, at: Date.now() });
    } else {
      const i = stateAt % clients.length;
      const on = Math.floor(stateAt++ / clients.length) % 2 === 0;
      publishState(clients[i], bridges[i].resourceId, {
        relay: on ? 'on' : 'off',
        since: new Date().toISOString(),
        sessionId: null,
      });
      sent.push({ kind: 'state', resource: bridges[i].resourceId, at: Date.now() });
    }
  }
  return sent;
}

/** Each bridge sends a batch, waits for its ack, and sends the next, until `until`. */
async function ingest(client: MqttClient, resourceId: number, batch: number, until: number) {
  while (Date.now() < until) {
    const items: LogItem[] = Array.from({ length: batch }, () => ({
      kind: 'log',
      id: randomUUID(),
      type: 'denied',
      reason: 'unknownKey',
      offline: true,
      createdAt: new Date().toISOString(),
    }));
    const got = new Promise((resolve) => client.once('acked' as any, resolve));
    client.publish(bridgeTopic(resourceId, 'logs'), JSON.stringify({ items }), { qos: 1 });
    await got;
  }
}

async function main() {
  // A few at a time (1,000 bridges one after the other take minutes on a busy machine).
  for (let i = 0; i < bridges.length; i += 20)
    clients.push(...(await Promise.all(bridges.slice(i, i + 20).map(connect))));
  process.stdout.write('ready\n');
  // The benchmark drives the farm through stdin: when that closes, the farm's job is over.
  process.stdin.on('end', () => process.exit(0));
  let buffer = '';
  process.stdin.on('data', async (chunk) => {
    buffer += chunk;
    let newline = buffer.indexOf('\n');
    while (newline >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      newline = buffer.indexOf('\n');
      const [command, ...args] = line.trim().split(' ');
      if (command === 'ingest') {
        const [seconds, batch] = args.map(Number);
        acked = 0;
        const started = Date.now();
        const until = started + seconds * 1000;
        await Promise.all(clients.map((c, i) => ingest(c, bridges[i].resourceId, batch, until)));
        const elapsed = (Date.now() - started) / 1000;
        process.stdout.write(`${JSON.stringify({ acked, seconds: elapsed, perSecond: acked / elapsed })}\n`);
      } else if (command === 'events') {
        const [rate, seconds] = args.map(Number);
        const sent = await events(rate, seconds, args[2] === 'states' ? 'states' : 'both');
        process.stdout.write(`${JSON.stringify(sent)}\n`);
      } else if (command === 'quit') {
        await Promise.all(clients.map((c) => c.endAsync()));
        process.exit(0);
      }
    }
  });
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
