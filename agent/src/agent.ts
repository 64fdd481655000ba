import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import type { CardReader, Display, Input, Relay, Sleep } from '@makerspace/hardware';
import { type Logger, offlineKeySecret, SystemdNotifier } from '@makerspace/shared/agent';
import type { AgentConfig } from './agent.config.js';
import type { Backoff } from './backoff.js';
import { BridgeConfigStore } from './bridge-config.store.js';
import { CardAccessFeature } from './card-access.feature.js';
import { CommandsFeature } from './commands.feature.js';
import { DisplayFeature } from './display.feature.js';
import { DoorHoldFeature } from './door-hold.feature.js';
import { FeedbackFeature } from './feedback.feature.js';
import { HubLink } from './hub-link.js';
import { IdleFeature } from './idle.feature.js';
import { InputsFeature } from './inputs.feature.js';
import { LogQueue } from './log-queue.js';
import { LogShipper } from './log-shipper.js';
import { RelayController } from './relay.controller.js';

import { TapSocket } from './tap-socket.js';
import { UpdateFeature } from './update.feature.js';
import { agentVersion } from './version.js';

export interface AgentDeps {
  config: AgentConfig;
  apiKey: string;
  logger: Logger;
  relay: Relay;
  cardReader: CardReader | null;
  /** The config's `inputs`, built (hardware's createInputs); none when absent. */
  inputs?: ReadonlyMap<string, Input>;
  /** The buzzer/LED output from the config's `feedback`, if any. */
  feedback?: Relay | null;
  /** How feedback beeps wait; tests may pass a faster one. */
  feedbackSleep?: Sleep;
  /** The reader's display from the config's `display`, if any. */
  display?: Display | null;
  /** How long a tap's answer stays on the display (5 s); tests shorten it. */
  displayHoldMs?: number;
  now?: () => Date;
  /** Reconnect delays; tests pass short ones. */
  backoff?: Backoff;
  /** Environment for sd_notify (NOTIFY_SOCKET, WATCHDOG_USEC). */
  env?: NodeJS.ProcessEnv;
  notifyCommand?: string;
  /** How long the hub has to answer a connect with the bridge config (5 s); tests shorten it. */
  hubAnswerTimeoutMs?: number;
  /** Stops the agent and exits with a code, for systemd to start it again (agent updates). */
  restart?: (code: number, reason: string) => void;
}

interface Feature {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The bridge agent: wires the features together and runs their life cycle. Each feature's
 * constructor only stores its dependencies; start() opens, stop() undoes exactly that, in reverse.
 */
export class Agent {
  readonly queue: LogQueue;
  readonly relay: RelayController;
  readonly link: HubLink;
  readonly bridgeConfig: BridgeConfigStore;
  readonly access: CardAccessFeature;
  readonly feedback: FeedbackFeature;
  readonly display: DisplayFeature;
  readonly doorHold: DoorHoldFeature;
  readonly inputs: InputsFeature;
  readonly idle: IdleFeature;
  readonly tapSocket: TapSocket;
  readonly notifier: SystemdNotifier;
  readonly updates: UpdateFeature;
  private readonly features: Feature[];
  private started: Feature[] = [];

  constructor(private readonly deps: AgentDeps) {
    const { config, logger, now } = deps;
    const log = (name: string) => logger.child({ feature: name });
    this.queue = new LogQueue({ dir: config.dataDir, logger: log('queue') });
    this.relay = new RelayController({
      relay: deps.relay,
      controlType: config.controlType,
      queue: this.queue,
      dataDir: config.dataDir,
      logger: log('relay'),
      now,
    });
    // The status message holds at most 500 characters (long paths or broker URLs are cut).
    const hardware = [deps.relay.description, deps.cardReader?.description, deps.display?.description]
      .filter(Boolean)
      .join('; ')
      .slice(0, 500);
    this.link = new HubLink({
      url: Array.isArray(config.hub) ? config.hub[0] : config.hub,
      ...(Array.isArray(config.hub) && config.hub.length > 1 ? { hubs: config.hub } : {}),
      resourceId: config.resourceId,
      apiKey: deps.apiKey,
      keepaliveSeconds: config.keepaliveSeconds,
      agentVersion,
      hardware,
      logger: log('hub'),
      now,
      backoff: deps.backoff,
      hubAnswerTimeoutMs: deps.hubAnswerTimeoutMs,
    });
    this.bridgeConfig = new BridgeConfigStore({
      link: this.link,
      controlType: config.controlType,
      dataDir: config.dataDir,
      logger: log('config'),
      pulseSeconds: config.pulseSeconds,
    });
    // The hub's setting wins once it has sent one; the local config covers the time before.
    const pulseSeconds = () => this.bridgeConfig.current?.pulseSeconds ?? config.pulseSeconds;
    const commands = new CommandsFeature({
      link: this.link,
      relay: this.relay,
      logger: log('commands'),
      pulseSeconds,
      now,
    });
    const shipper = new LogShipper({
      link: this.link,
      queue: this.queue,
      logger: log('logs'),
      ackTimeoutMs: config.logAckTimeoutSeconds * 1000,
    });
    this.feedback = new FeedbackFeature({
      output: deps.feedback ?? null,
      logger: log('feedback'),
      sleep: deps.feedbackSleep,
    });
    this.display = new DisplayFeature({
      display: deps.display ?? null,
      idleLines: () => [
        this.bridgeConfig.current?.name ?? (config.controlType === 'door' ? 'Door' : 'Machine'),
        this.relay.currentSession ? 'In use' : this.relay.held ? 'Unlocked' : 'Tap your card',
      ],
      logger: log('display'),
      holdMs: deps.displayHoldMs,
    });
    this.bridgeConfig.onChange(() => this.display.refresh());
    this.access = new CardAccessFeature({
      link: this.link,
      relay: this.relay,
      queue: this.queue,
      bridgeConfig: this.bridgeConfig,
      reader: deps.cardReader,
      feedback: this.feedback,
      display: this.display,
      logger: log('access'),
      pulseSeconds,
      accessTimeoutMs: config.accessTimeoutSeconds * 1000,
      offlineKeySecret: offlineKeySecret(deps.apiKey),
      now,
    });
    this.doorHold = new DoorHoldFeature({
      relay: this.relay,
      config: this.bridgeConfig,
      queue: this.queue,
      dataDir: config.dataDir,
      logger: log('door-hold'),
      now,
    });
    this.inputs = new InputsFeature({
      config: config.inputs,
      inputs: deps.inputs ?? new Map(),
      relay: this.relay,
      queue: this.queue,
      report: (message) => this.link.setInputs(message),
      pulseSeconds,
      logger: log('inputs'),
      now,
    });
    this.idle = new IdleFeature({
      relay: this.relay,
      inputs: this.inputs,
      config: this.bridgeConfig,
      feedback: this.feedback,
      logger: log('idle'),
      now,
    });
    this.relay.setSessionHooks({
      refuseStart: () => {
        const interlock = this.inputs.openInterlock();
        return interlock === null ? null : `the interlock "${interlock}" is open`;
      },
      deferMaxDuration: (session) => this.idle.deferMaxDuration(session),
      idleSeconds: (session, at) => this.idle.idleSeconds(session, at.getTime()),
    });
    this.tapSocket = new TapSocket({
      dataDir: config.dataDir,
      logger: log('tap'),
      onTap: (card) => this.access.handleCard(card),
    });
    this.notifier = new SystemdNotifier({
      logger: log('systemd'),
      env: deps.env,
      command: deps.notifyCommand,
      // A relay board that is gone stops the watchdog: systemd restarts the agent, whose start
      // opens the board again (or fails and says why).
      healthy: () => this.relay.hardwareHealthy(),
    });
    this.updates = new UpdateFeature({
      config,
      apiKey: deps.apiKey,
      link: this.link,
      relay: this.relay,
      logger: log('update'),
      agentVersion,
      restart:
        deps.restart ??
        ((code, reason) => logger.warn({ code, reason }, 'restart requested; not supported here')),
      now,
    });
    this.relay.onStateChange((state) => {
      this.link.setRelayState(state);
      this.display.refresh();
    });
    // Order matters: the queue before anything that logs, the relay (off) before anything that
    // switches it, handlers registered before the link connects.
    this.features = [
      this.queue,
      this.relay,
      this.bridgeConfig,
      this.doorHold,
      commands,
      shipper,
      this.feedback,
      this.display,
      this.inputs,
      this.idle,
      this.access,
      this.updates,
      this.link,
      this.tapSocket,
      this.notifier,
    ];
  }

  async start(): Promise<void> {
    const { config, logger } = this.deps;
    await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
    for (const feature of this.features) {
      await feature.start();
      this.started.push(feature);
      if (feature === this.relay) {
        // Fabman's 'reboot' log: the hub learns when (and with which version) the bridge restarted.
        const createdAt = (this.deps.now ?? (() => new Date()))().toISOString();
        await this.queue.append({
          kind: 'log',
          id: randomUUID(),
          type: 'reboot',
          createdAt,
          notes: `agent ${agentVersion} started`,
        });
      }
    }
    logger.info(
      { resourceId: config.resourceId, controlType: config.controlType, version: agentVersion },
      'agent started',
    );
    void this.link.firstAttempt.then(() =>
      this.notifier.ready(
        this.link.connected ? 'connected to the hub' : 'hub not reachable; working offline',
      ),
    );
  }

  /**
   * Stops every started feature in reverse order, except that the relay goes first: it switches
   * off (ending a machine session) while the hub link can still publish the final state.
   */
  async stop(): Promise<void> {
    await this.notifier.stopping();
    const features = this.started.reverse();
    this.started = [];
    const relayIndex = features.indexOf(this.relay);
    if (relayIndex > 0) features.unshift(...features.splice(relayIndex, 1));
    for (const feature of features) {
      try {
        await feature.stop();
      } catch (err) {
        this.deps.logger.error({ err: (err as Error).message }, 'stopping a feature failed');
      }
    }
  }
}
