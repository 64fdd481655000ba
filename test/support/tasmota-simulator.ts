import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Aedes } from 'aedes';
import mqtt, { type MqttClient } from 'mqtt';

/*
 * A SIMULATOR of a plug running Tasmota (13.x/14.x), written from Tasmota's published
 * documentation (MQTT topics and FullTopic, the Power, PulseTime and Status commands, energy
 * monitoring, the Last Will). It is not Tasmota: it answers the commands the driver sends the way
 * those pages describe, as an MQTT client of a broker the test starts (aedes on 127.0.0.1 port 0).
 */

/** An aedes broker on 127.0.0.1 port 0, for the plug and the agent to meet on. */
export async function startTestBroker(credentials?: {
  username: string;
  password: string;
}): Promise<{ url: string; close: () => Promise<void> }> {
  const broker = await Aedes.createBroker();
  if (credentials) {
    broker.authenticate = (_client, username, password, done) =>
      done(null, username === credentials.username && password?.toString() === credentials.password);
  }
  const server: Server = createServer(broker.handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `mqtt://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: async () => {
      await new Promise<void>((resolve) => broker.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface TasmotaSimulatorOptions {
  broker: string;
  topic: string;
  /** Power metering (Sonoff S31, Nous A1T, Gosund SP111...): SENSOR and STATUS10 carry ENERGY. */
  metering?: boolean;
}

export class TasmotaSimulator {
  power = false;
  /** Watts drawn while on. */
  load = 0;
  /** The PulseTime value stored in the device's settings (0: off). */
  pulseTime = 0;
  /** When the running pulse timer switches the relay off (ms since epoch), if any. */
  pulseEndsAt: number | null = null;
  /** Every command received: [name, payload]. */
  readonly commands: Array<[string, string]> = [];
  private client: MqttClient | null = null;
  private pulseTimer: NodeJS.Timeout | null = null;
  private silent = false;

  constructor(private readonly options: TasmotaSimulatorOptions) {}

  private t(prefix: 'cmnd' | 'stat' | 'tele', name: string): string {
    return `${prefix}/${this.options.topic}/${name}`;
  }

  async start(): Promise<void> {
    const client = mqtt.connect(this.options.broker, {
      clientId: `DVES_${this.options.topic}`,
      reconnectPeriod: 0,
      will: { topic: this.t('tele', 'LWT'), payload: Buffer.from('Offline'), qos: 1, retain: true },
    });
    this.client = client;
    await new Promise<void>((resolve, reject) => {
      client.once('connect', () => resolve());
      client.once('error', reject);
    });
    client.on('message', (topic, payload) => this.command(topic, payload.toString('utf8')));
    await client.subscribeAsync(this.t('cmnd', '#'));
    await client.publishAsync(this.t('tele', 'LWT'), 'Online', { qos: 1, retain: true });
  }

  /** Sends a teleperiod SENSOR message now (the device does so every TelePeriod seconds). */
  telemetry(): void {
    if (!this.options.metering) return;
    this.client?.publish(this.t('tele', 'SENSOR'), JSON.stringify({ Time: now(), ENERGY: this.energy() }));
  }

  /** The device stays connected but answers nothing (a hung firmware, a full queue). */
  stopAnswering(): void {
    this.silent = true;
  }

  answerAgain(): void {
    this.silent = false;
  }

  /** The plug loses power: its connection drops and the broker publishes its Last Will. */
  pullThePlug(): void {
    this.client?.stream.destroy();
    this.client = null;
    this.stopPulse();
  }

  /** The button on the plug toggles the relay (and starts the pulse timer when it switches on). */
  pressButton(): void {
    this.setPower(!this.power);
    this.report();
  }

  async stop(): Promise<void> {
    this.stopPulse();
    await this.client?.endAsync(true);
    this.client = null;
  }

  private command(topic: string, payload: string): void {
    const name = topic.slice(this.t('cmnd', '').length);
    this.commands.push([name, payload]);
    if (this.silent) return;
    const upper = name.toUpperCase();
    if (upper === 'POWER' || upper === 'POWER1') {
      const text = payload.trim().toUpperCase();
      if (text === 'ON' || text === '1') this.setPower(true);
      else if (text === 'OFF' || text === '0') this.setPower(false);
      else if (text === 'TOGGLE' || text === '2') this.setPower(!this.power);
      else if (text !== '') {
        this.result({ Command: 'Error' });
        return;
      }
      this.report();
      return;
    }
    if (upper === 'PULSETIME' || upper === 'PULSETIME1') {
      if (payload.trim() !== '') {
        const value = Number(payload);
        if (!Number.isInteger(value) || value < 0 || value > 64900) {
          this.result({ Command: 'Error' });
          return;
        }
        this.pulseTime = value;
      }
      const remaining = this.pulseEndsAt ? Math.ceil((this.pulseEndsAt - Date.now()) / 100) : 0;
      this.result({ PulseTime1: { Set: this.pulseTime, Remaining: remaining } });
      return;
    }
    if (upper === 'STATUS' && payload.trim() === '10') {
      const sns: Record<string, unknown> = { Time: now() };
      if (this.options.metering) sns.ENERGY = this.energy();
      this.client?.publish(this.t('stat', 'STATUS10'), JSON.stringify({ StatusSNS: sns }));
      return;
    }
    this.result({ Command: 'Unknown' });
  }

  private result(value: unknown): void {
    this.client?.publish(this.t('stat', 'RESULT'), JSON.stringify(value));
  }

  /** A single-relay device answers on RESULT and on POWER (not POWER1). */
  private report(): void {
    const state = this.power ? 'ON' : 'OFF';
    this.result({ POWER: state });
    this.client?.publish(this.t('stat', 'POWER'), state);
  }

  /** Power ON (re)starts the pulse timer when PulseTime is set; OFF stops it. */
  private setPower(on: boolean): void {
    this.power = on;
    this.stopPulse();
    if (on && this.pulseTime > 0) {
      const ms = this.pulseTime <= 111 ? this.pulseTime * 100 : (this.pulseTime - 100) * 1000;
      this.pulseEndsAt = Date.now() + ms;
      this.pulseTimer = setTimeout(() => {
        this.pulseTimer = null;
        this.pulseEndsAt = null;
        this.power = false;
        this.report();
      }, ms);
    }
  }

  private stopPulse(): void {
    if (this.pulseTimer) clearTimeout(this.pulseTimer);
    this.pulseTimer = null;
    this.pulseEndsAt = null;
  }

  private energy() {
    const watts = this.power ? this.load : 0;
    return {
      TotalStartTime: '2024-01-01T00:00:00',
      Total: 12.345,
      Yesterday: 0.5,
      Today: 0.1,
      Power: watts,
      ApparentPower: watts,
      ReactivePower: 0,
      Factor: this.power ? 1 : 0,
      Voltage: 230,
      Current: Math.round((watts / 230) * 1000) / 1000,
    };
  }
}

function now(): string {
  return new Date().toISOString().slice(0, 19);
}
