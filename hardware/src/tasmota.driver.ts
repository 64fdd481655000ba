import { randomBytes } from 'node:crypto';
import type { MqttClient } from 'mqtt';
import { HardwareError, type HardwareLogger } from './hardware.errors.js';
import {
  type PlugStatus,
  readPasswordFile,
  SmartPlugRelay,
  type SmartPlugTiming,
} from './smart-plug.relay.js';
import { parseEnergyPower, parsePowerState, pulseTimeValue, tasmotaTopic } from './tasmota-mqtt.js';

export interface TasmotaOptions extends SmartPlugTiming {
  /** The MQTT broker the plug is set up to use (`mqtt://host:1883`, `mqtts://`). */
  broker: string;
  /** The plug's Topic setting (Configuration > MQTT > Topic). */
  topic: string;
  /** The plug's FullTopic setting. */
  fullTopic: string;
  /** Which relay of the device (1 on single plugs). */
  relay: number;
  username?: string;
  /** File holding the broker password for `username`. */
  passwordFile?: string;
  logger?: HardwareLogger;
}

type Waiter = { match: (payload: string) => boolean; resolve: (payload: string) => void };

/**
 * A plug running Tasmota, over MQTT through the broker named in the config: `cmnd/<topic>/POWER`
 * switches and asks, `stat/<topic>/POWER` answers, `tele/<topic>/SENSOR` and `Status 10` carry
 * `ENERGY.Power`, `PulseTime` is the dead man's timer (each `POWER ON` restarts it) and the Last
 * Will `tele/<topic>/LWT Offline` says the plug is gone. mqtt loads on open().
 */
export class TasmotaRelay extends SmartPlugRelay {
  readonly description: string;
  private client: MqttClient | null = null;
  private readonly waiters = new Map<string, Set<Waiter>>();
  private readonly powerCommand: string;
  private readonly powerAnswers: string[];

  constructor(private readonly options: TasmotaOptions) {
    super(options, options.logger);
    this.description = `Tasmota plug ${options.topic} (relay ${options.relay}) via ${redacted(options.broker)}`;
    this.powerCommand = `POWER${options.relay}`;
    // A device with one relay answers POWER, one with several POWER<n>.
    this.powerAnswers = options.relay === 1 ? ['POWER', 'POWER1'] : [`POWER${options.relay}`];
  }

  protected async connect(): Promise<void> {
    const { options } = this;
    let password: string | undefined;
    if (options.passwordFile) password = await readPasswordFile(options.passwordFile, this.description);
    let mqtt: typeof import('mqtt');
    try {
      mqtt = await import('mqtt');
    } catch (err) {
      throw new HardwareError('device-error', 'the mqtt package is not installed (npm ci in the agent)', {
        cause: err,
      });
    }
    const client = mqtt.connect(options.broker, {
      clientId: `makerspace-agent-${randomBytes(4).toString('hex')}`,
      username: options.username,
      password,
      connectTimeout: options.timeoutMs,
      reconnectPeriod: 1000,
      clean: true,
      // As the hub link: mqtt-packet would otherwise pre-build a Buffer for each of the 65,536
      // two-byte numbers on the first write (about 6 MiB of heap). The plug is opened before the
      // hub link, so its client must say so too, or the cache is built by the time the hub
      // link's client turns it off.
      writeCache: false,
    });
    this.client = client;
    client.on('message', (topic, payload) => this.message(topic, payload.toString('utf8')));
    client.on('error', (err) =>
      this.logger.warn({ err: err.message, plug: this.description }, 'plug broker error'),
    );
    await new Promise<void>((resolve, reject) => {
      client.once('connect', () => resolve());
      client.once('error', (err) =>
        reject(new HardwareError('device-unreachable', `${this.description}: broker: ${err.message}`)),
      );
    });
    const topic = (prefix: 'stat' | 'tele') => tasmotaTopic(options.fullTopic, prefix, options.topic, '+');
    await client.subscribeAsync([topic('stat'), topic('tele')], { qos: 0 });
    if (options.deadManSeconds > 0) {
      const name = `PulseTime${options.relay}`;
      const value = pulseTimeValue(options.deadManSeconds);
      const answer = await this.command(name, String(value), 'RESULT', (payload) =>
        payload.includes(`"${name}"`),
      );
      this.logger.info({ plug: this.description, pulseTime: value, answer }, 'Tasmota auto-off timer set');
    }
  }

  protected async disconnect(): Promise<void> {
    const client = this.client;
    this.client = null;
    for (const set of this.waiters.values()) set.clear();
    if (client) await client.endAsync(true).catch(() => {});
  }

  protected async switchTo(on: boolean): Promise<void> {
    await this.power(on ? 'ON' : 'OFF', (state) => state === on);
  }

  protected async readStatus(): Promise<PlugStatus> {
    const client = this.client;
    // The energy reading answers on STATUS10, handled in message(); the plug may not meter at all.
    if (client?.connected) client.publish(this.cmnd('Status'), '10');
    const state = await this.power('', () => true);
    return { on: state };
  }

  private async power(payload: string, accept: (state: boolean) => boolean): Promise<boolean> {
    const answer = await this.command(this.powerCommand, payload, this.powerAnswers, (text) => {
      const state = parsePowerState(text);
      return state !== null && accept(state);
    });
    return parsePowerState(answer) === true;
  }

  private cmnd(name: string): string {
    return tasmotaTopic(this.options.fullTopic, 'cmnd', this.options.topic, name);
  }

  /** Publishes a command and waits for the answer on `stat/<topic>/<one of names>`. */
  private command(
    name: string,
    payload: string,
    answers: string | string[],
    match: (payload: string) => boolean,
  ): Promise<string> {
    const client = this.client;
    if (!client?.connected)
      return Promise.reject(
        new HardwareError('device-unreachable', `${this.description}: broker not connected`),
      );
    const topics = (Array.isArray(answers) ? answers : [answers]).map((answer) =>
      tasmotaTopic(this.options.fullTopic, 'stat', this.options.topic, answer),
    );
    return new Promise<string>((resolve, reject) => {
      const waiter: Waiter = {
        match,
        resolve: (text) => {
          clearTimeout(timer);
          remove();
          resolve(text);
        },
      };
      const remove = () => {
        for (const topic of topics) this.waiters.get(topic)?.delete(waiter);
      };
      const timer = setTimeout(() => {
        remove();
        reject(
          new HardwareError(
            'device-unreachable',
            `${this.description}: ${name}: no answer within ${this.options.timeoutMs} ms`,
          ),
        );
      }, this.options.timeoutMs);
      for (const topic of topics) {
        const set = this.waiters.get(topic) ?? new Set<Waiter>();
        this.waiters.set(topic, set);
        set.add(waiter);
      }
      client.publish(this.cmnd(name), payload, { qos: 0 });
    });
  }

  private message(topic: string, payload: string): void {
    const waiters = this.waiters.get(topic);
    if (waiters) for (const waiter of [...waiters]) if (waiter.match(payload)) waiter.resolve(payload);
    const { fullTopic, topic: name, relay } = this.options;
    if (topic === tasmotaTopic(fullTopic, 'tele', name, 'LWT')) {
      if (payload.trim() === 'Offline') this.gone('the plug left the broker (Last Will: Offline)');
      return;
    }
    if (
      topic === tasmotaTopic(fullTopic, 'tele', name, 'SENSOR') ||
      topic === tasmotaTopic(fullTopic, 'stat', name, 'STATUS10')
    ) {
      const watts = parseEnergyPower(payload, relay);
      if (watts !== undefined) this.reading(watts);
    }
  }
}

/** The broker URL without a password in it, for logs. */
function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    parsed.username = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}
