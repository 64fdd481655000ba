import { readdir, rm } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger, UpdateProgress, UpdateRequest, UpdateStep } from '@makerspace/shared/agent';
import type { AgentConfig } from './agent.config.js';
import type { HubLink } from './hub-link.js';
import {
  currentTarget,
  type PendingUpdate,
  readMarker,
  readResult,
  releasesDir,
  removeMarker,
  removeResult,
  switchCurrent,
  writeMarker,
  writeResult,
} from './releases.js';
import type { RelayController } from './relay.controller.js';

/** The exit code of a new version that did not connect in time: the launcher then rolls back. */
export const EXIT_UPDATE_NOT_CONNECTED = 3;
/** How long a new version has to connect to the hub before it is rolled back (seconds). */
export const DEFAULT_CONFIRM_SECONDS = 60;

export interface UpdateFeatureOptions {
  config: AgentConfig;
  apiKey: string;
  link: HubLink;
  relay: RelayController;
  logger: Logger;
  agentVersion: string;
  /** Stops the agent and exits with this code; systemd (Restart=always) starts it again. */
  restart: (code: number, reason: string) => void;
  now?: () => Date;
  /** How often a waiting update looks whether the machine is off (1 s). */
  idlePollMs?: number;
}

/**
 * Agent updates (docs/OPERATIONS.md, "Updating agents"). When the hub asks (`update`), the
 * release is downloaded, checked and unpacked beside the running one, the `current` link is
 * switched once the machine is off, and the agent exits for systemd to start the new version.
 * A new version confirms itself once it has connected; one that does not in time exits, and the
 * launcher (agent/bin) goes back to the previous version. Each step is reported to the hub.
 */
export class UpdateFeature {
  private readonly now: () => Date;
  private busy = false;
  private stopped = false;
  private confirmTimer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly options: UpdateFeatureOptions) {
    this.now = options.now ?? (() => new Date());
  }

  private get dataDir(): string {
    return this.options.config.dataDir;
  }

  async start(): Promise<void> {
    const { link, logger, agentVersion } = this.options;
    this.stopped = false;
    link.handle('update', (update) => {
      void this.install(update);
    });
    const marker = readMarker(this.dataDir);
    if (marker && marker.version === agentVersion) {
      logger.info(
        { version: agentVersion, deadline: marker.deadline },
        'new version: it stays once it has connected to the hub',
      );
      this.awaitConfirmation(marker);
    } else if (marker) {
      // The marker names another version: the switch did not take (the agent was started
      // without its launcher, or the switch failed before the restart).
      await writeResult(this.dataDir, {
        id: marker.id,
        version: marker.version,
        step: 'failed',
        runningVersion: agentVersion,
        error: `the agent started ${agentVersion} again, not ${marker.version}: start it through agent/bin/makerspace-agent.js (systemd/makerspace-agent.service)`,
        at: this.now().toISOString(),
      });
      await removeMarker(this.dataDir);
    }
    const offConnect = link.onConnect(() => void this.flushResult());
    const before = this.unsubscribe;
    this.unsubscribe = () => {
      before?.();
      offConnect();
    };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.confirmTimer) clearTimeout(this.confirmTimer);
    this.confirmTimer = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  /** Confirms the running new version when it connects; exits for a rollback at the deadline. */
  private awaitConfirmation(marker: PendingUpdate): void {
    const { link, logger } = this.options;
    let confirmed = false;
    const off = link.onConnect(() => {
      if (confirmed) return;
      confirmed = true;
      off();
      if (this.confirmTimer) clearTimeout(this.confirmTimer);
      this.confirmTimer = null;
      void this.confirm(marker);
    });
    this.unsubscribe = off;
    // A moment past the deadline, so that the launcher finds the marker overdue.
    const wait = Math.max(0, Date.parse(marker.deadline) - this.now().getTime()) + 250;
    this.confirmTimer = setTimeout(() => {
      this.confirmTimer = null;
      if (confirmed || this.stopped) return;
      logger.error(
        { version: marker.version, previous: marker.previousVersion },
        `the new version did not connect to the hub within ${marker.confirmSeconds} s: restarting to go back to ${marker.previousVersion}`,
      );
      this.options.restart(EXIT_UPDATE_NOT_CONNECTED, 'update did not connect');
    }, wait);
  }

  private async confirm(marker: PendingUpdate): Promise<void> {
    const { logger, agentVersion } = this.options;
    try {
      await writeResult(this.dataDir, {
        id: marker.id,
        version: marker.version,
        step: 'connected',
        runningVersion: agentVersion,
        at: this.now().toISOString(),
      });
      await removeMarker(this.dataDir);
      logger.info({ version: agentVersion }, 'update confirmed: connected to the hub on the new version');
      await this.flushResult();
      await this.removeOldReleases(marker);
    } catch (err) {
      logger.error({ err: (err as Error).message }, 'confirming the update failed');
    }
  }

  /** The end of an update (connected, rolled back, failed across a restart) reaches the hub once. */
  private async flushResult(): Promise<void> {
    const result = readResult(this.dataDir);
    if (!result) return;
    try {
      await this.options.link.publish('update/progress', result);
      await removeResult(this.dataDir);
    } catch (err) {
      this.options.logger.warn(
        { err: (err as Error).message },
        'update result not sent; sent on the next connect',
      );
    }
  }

  /** Releases other than the current and the previous one go. */
  private async removeOldReleases(marker: PendingUpdate): Promise<void> {
    const dir = releasesDir(this.dataDir);
    const keep = new Set([await currentTarget(this.dataDir), marker.previous].filter(Boolean) as string[]);
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith('.') || keep.has(entry.name)) continue;
      if (keep.has(join(dir, entry.name))) continue;
      await rm(join(dir, entry.name), { recursive: true, force: true });
    }
  }

  private async report(update: UpdateRequest, step: UpdateStep, error?: string): Promise<void> {
    const progress: UpdateProgress = {
      id: update.id,
      version: update.version,
      step,
      runningVersion: this.options.agentVersion,
      ...(error ? { error: error.slice(0, 1000) } : {}),
      at: this.now().toISOString(),
    };
    await this.options.link.publish('update/progress', progress).catch((err) => {
      this.options.logger.warn({ step, err: (err as Error).message }, 'update progress not sent');
    });
  }

  async install(update: UpdateRequest): Promise<void> {
    const { logger, agentVersion, config } = this.options;
    if (this.busy) {
      logger.warn({ version: update.version }, 'an update is already running; this one is ignored');
      await this.report(update, 'failed', 'another update is running on this agent');
      return;
    }
    this.busy = true;
    logger.info({ version: update.version, from: agentVersion }, 'update requested by the hub');
    let restarting = false;
    try {
      const { installRelease } = await import('./release-install.js');
      await installRelease({
        dataDir: this.dataDir,
        apiKey: this.options.apiKey,
        url: downloadUrl(config, update),
        update,
        runningVersion: agentVersion,
        nodeModules: thirdPartyModules(),
        step: (step) => this.report(update, step),
      });
      await this.report(update, 'installed');
      logger.info({ version: update.version }, 'release installed beside the running one');
      await this.untilRelayOff(update);
      if (this.stopped) return;
      const confirmSeconds = config.updates?.confirmSeconds ?? DEFAULT_CONFIRM_SECONDS;
      await writeMarker(this.dataDir, {
        id: update.id,
        version: update.version,
        previous: await currentTarget(this.dataDir),
        previousVersion: agentVersion,
        deadline: new Date(this.now().getTime() + confirmSeconds * 1000).toISOString(),
        confirmSeconds,
      });
      await switchCurrent(this.dataDir, update.version);
      await this.report(update, 'restarting');
      logger.info({ version: update.version }, 'restarting on the new version');
      restarting = true;
      this.options.restart(0, `update to ${update.version}`);
    } catch (err) {
      const message = (err as Error).message;
      logger.error({ version: update.version, err: message }, 'update failed');
      await removeMarker(this.dataDir).catch(() => {});
      await this.report(update, 'failed', message);
    } finally {
      if (!restarting) this.busy = false;
    }
  }

  /**
   * A running machine is not cut for an update: the switch waits until the relay is off. A door
   * does not wait (a door held open all day would never update); its restart takes a second or
   * two, and a held door is held again by the new version (door-hold.json).
   */
  private async untilRelayOff(update: UpdateRequest): Promise<void> {
    if (this.options.config.controlType !== 'machine' || this.options.relay.state().relay !== 'on') return;
    await this.report(update, 'waitingForIdle');
    this.options.logger.info('update waits until the relay is off');
    while (!this.stopped && this.options.relay.state().relay === 'on') {
      await new Promise((resolve) => setTimeout(resolve, this.options.idlePollMs ?? 1000));
    }
  }
}

/**
 * Where the bundle is downloaded from: `updates.hubUrl` of the config; else the HTTP address of
 * a `ws(s)://` hub (pairing's default, the hub serves MQTT at /mqtt); else the message's URL.
 */
export function downloadUrl(config: AgentConfig, update: UpdateRequest): string {
  const path = 'api/v1/bridge/agent-release';
  if (config.updates?.hubUrl) return new URL(path, `${config.updates.hubUrl.replace(/\/+$/, '')}/`).href;
  const hub = new URL(Array.isArray(config.hub) ? config.hub[0] : config.hub);
  if (hub.protocol === 'ws:' || hub.protocol === 'wss:') {
    const base = new URL(hub.href);
    base.protocol = hub.protocol === 'wss:' ? 'https:' : 'http:';
    base.pathname = `${hub.pathname.replace(/\/mqtt\/?$/, '').replace(/\/+$/, '')}/`;
    base.search = '';
    return new URL(path, base).href;
  }
  return update.url;
}

/** The installation's third-party modules (where mqtt is found), shared by every release. */
export function thirdPartyModules(): string {
  const mqtt = fileURLToPath(import.meta.resolve('mqtt'));
  const marker = `${sep}node_modules${sep}`;
  return mqtt.slice(0, mqtt.lastIndexOf(marker) + marker.length - 1);
}
