import type { Logger } from '@makerspace/shared';
import mqtt, { type MqttClient } from 'mqtt';
import type { HubServices } from '../http/services.js';
import { isAdmin } from '../kernel/caller.js';
import { totp } from '../resources/codes.js';
import { readVisibleStatuses, statusFor } from '../resources/status.js';
import {
  commandSubscription,
  componentOf,
  discoveryConfig,
  discoveryTopic,
  type HaComponent,
  type HaTopics,
  HUB_OFFLINE,
  HUB_ONLINE,
  hubStatusTopic,
  parseCommand,
  resourceOfCommandTopic,
  resourceTopics,
  statePayload,
} from './ha.topics.js';
import type { HomeAssistantSettings } from './ha.settings.js';

/**
 * The hub's own API as the link calls it: a POST to `path` (under /api/v1) as the member whose
 * token it is; answers the status and the body. The hub passes it in (app.inject).
 */
export type HubApiCall = (
  path: string,
  token: string,
  payload: object,
) => Promise<{ statusCode: number; body: string }>;

/** What was announced for one resource, so only changes are published. */
interface Announced {
  component: HaComponent;
  config: string;
  state: string;
  availability: string;
}

const RESYNC_MS = 30_000;
const STOP_WAIT_MS = 2_000;
// Several state changes in a row (switch-on, relay on, session) become one publication.
const SYNC_DELAY_MS = 50;

/**
 * Home Assistant discovery on the operator's MQTT broker: announces the resources the configured
 * member sees (doors as locks, machines as switches), publishes their state and their bridge's
 * availability, and turns commands from Home Assistant into switch-ons and switch-offs through
 * the hub's own HTTP API with the member's token, so the same authentication, access policy and
 * switch-on path decide as for any other switch-on.
 */
export class HomeAssistantLink {
  private client: MqttClient | null = null;
  private readonly announced = new Map<number, Announced>();
  private readonly topics: HaTopics;
  private readonly logger: Logger;
  private timer: NodeJS.Timeout | null = null;
  private syncTimer: NodeJS.Timeout | null = null;
  private syncing: Promise<void> = Promise.resolve();
  private stopSignals: (() => void) | null = null;
  private tokenRefused = false;

  constructor(
    private readonly ctx: HubServices,
    private readonly callApi: HubApiCall,
    private readonly settings: HomeAssistantSettings,
  ) {
    this.topics = { discoveryPrefix: settings.discoveryPrefix, base: settings.base };
    this.logger = ctx.logger.child({ component: 'home-assistant' });
  }

  start(): void {
    if (this.client) return;
    const will = {
      topic: hubStatusTopic(this.topics),
      payload: Buffer.from(HUB_OFFLINE),
      retain: true,
      qos: 1 as const,
    };
    const client = mqtt.connect(this.settings.mqttUrl, {
      clientId: `makerspace-hub-${process.pid}`,
      will,
      reconnectPeriod: 5_000,
      connectTimeout: 10_000,
    });
    this.client = client;
    client.on('connect', () => {
      this.logger.info(
        { broker: redactUrl(this.settings.mqttUrl) },
        'Home Assistant: connected to the MQTT broker',
      );
      // A new session (or a broker that lost its retained messages) gets everything again.
      this.announced.clear();
      void client.publishAsync(will.topic, HUB_ONLINE, { retain: true, qos: 1 }).catch(() => {});
      client.subscribe(commandSubscription(this.topics), { qos: 1 });
      this.scheduleSync();
    });
    client.on('error', (err) => {
      this.logger.warn(
        { err: { message: err.message, code: (err as { code?: unknown }).code } },
        'Home Assistant: MQTT error',
      );
    });
    client.on('message', (topic, payload) => {
      this.onCommand(topic, payload.toString('utf8')).catch((err) => {
        this.logger.warn(
          { topic, err: { message: (err as Error).message } },
          'Home Assistant: command failed',
        );
      });
    });
    this.stopSignals = this.ctx.signals.onChange(() => this.scheduleSync());
    this.timer = setInterval(() => this.scheduleSync(), this.settings.resyncMs ?? RESYNC_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    const client = this.client;
    if (!client) return;
    this.client = null;
    this.stopSignals?.();
    if (this.timer) clearInterval(this.timer);
    if (this.syncTimer) clearTimeout(this.syncTimer);
    // A broker that went away mid-publication must not hold up the hub's stop.
    await withinMs(this.syncing, STOP_WAIT_MS);
    if (client.connected) {
      // A clean stop says so itself; the will covers crashes.
      await withinMs(
        client
          .publishAsync(hubStatusTopic(this.topics), HUB_OFFLINE, { retain: true, qos: 1 })
          .catch(() => {}),
        STOP_WAIT_MS,
      );
    }
    await client.endAsync(!client.connected);
  }

  private scheduleSync(): void {
    if (this.syncTimer || !this.client?.connected) return;
    this.syncTimer = setTimeout(() => {
      this.syncTimer = null;
      this.syncing = this.syncing
        .then(() => this.sync())
        .catch((err) => {
          this.logger.warn(
            { err: { message: (err as Error).message } },
            'Home Assistant: publishing the state failed',
          );
        });
    }, SYNC_DELAY_MS);
  }

  /** Publishes configs, states and availability that changed; removes resources that went away. */
  private async sync(): Promise<void> {
    const client = this.client;
    if (!client?.connected) return;
    const caller = await this.ctx.auth.authenticate(this.settings.token);
    if (!caller) {
      if (!this.tokenRefused)
        this.logger.error(
          {},
          'Home Assistant: the configured API token (HUB_HA_TOKEN) is not valid; nothing is announced',
        );
      this.tokenRefused = true;
      for (const id of [...this.announced.keys()]) await this.remove(client, id);
      return;
    }
    this.tokenRefused = false;
    const viewer = {
      accountId: caller.accountId,
      memberId: caller.memberId,
      superuser: caller.superuser,
      admin: isAdmin(caller),
    };
    const reads = this.ctx.storage.reads;
    const rows = (await readVisibleStatuses(reads, viewer)).filter((row) => Boolean(Number(row.hasBridge)));
    const ids = rows.map((row) => row.resource);
    const names = ids.length
      ? await reads.rows<{ id: number; name: string; controlType: string }>(
          `select "id", "name", "controlType" from "resources" where "id" in (${ids.map(() => '?').join(', ')})`,
          ids,
        )
      : [];
    const byId = new Map(names.map((r) => [r.id, r]));
    const seen = new Set<number>();
    for (const row of rows) {
      const resource = byId.get(row.resource);
      if (!resource) continue;
      seen.add(resource.id);
      const status = statusFor(viewer, row);
      const component = componentOf(resource);
      const next: Announced = {
        component,
        config: JSON.stringify(discoveryConfig(this.topics, resource)),
        state: statePayload(component, status.relay ?? 'off'),
        availability: status.online ? HUB_ONLINE : HUB_OFFLINE,
      };
      const before = this.announced.get(resource.id);
      if (before && before.component !== component) await this.remove(client, resource.id);
      const prev = this.announced.get(resource.id);
      const topics = resourceTopics(this.topics, resource.id);
      const opts = { retain: true, qos: 1 as const };
      if (prev?.config !== next.config)
        await client.publishAsync(discoveryTopic(this.topics, component, resource.id), next.config, opts);
      if (prev?.availability !== next.availability)
        await client.publishAsync(topics.availability, next.availability, opts);
      if (prev?.state !== next.state) await client.publishAsync(topics.state, next.state, opts);
      this.announced.set(resource.id, next);
    }
    for (const id of [...this.announced.keys()]) if (!seen.has(id)) await this.remove(client, id);
  }

  /** Removes a resource from Home Assistant: empty retained config, state and availability. */
  private async remove(client: MqttClient, resourceId: number): Promise<void> {
    const prev = this.announced.get(resourceId);
    if (!prev) return;
    this.announced.delete(resourceId);
    const topics = resourceTopics(this.topics, resourceId);
    const opts = { retain: true, qos: 1 as const };
    await client.publishAsync(discoveryTopic(this.topics, prev.component, resourceId), '', opts);
    await client.publishAsync(topics.state, '', opts);
    await client.publishAsync(topics.availability, '', opts);
  }

  /** A command from Home Assistant: checked, then the hub's own switch-on or switch-off. */
  private async onCommand(topic: string, payload: string): Promise<void> {
    const resourceId = resourceOfCommandTopic(this.topics, topic);
    const announced = resourceId === null ? undefined : this.announced.get(resourceId);
    if (resourceId === null || !announced) {
      this.logger.warn({ topic }, 'Home Assistant: command for a resource that is not announced; ignored');
      return;
    }
    const command = parseCommand(announced.component, payload);
    if (typeof command !== 'string') {
      this.logger.warn({ resource: resourceId, problem: command.error }, 'Home Assistant: command ignored');
      return;
    }
    if (command === 'lock') {
      // A door locks by itself when its pulse ends; say the state again so the UI does not wait.
      await this.republishState(resourceId, announced);
      return;
    }
    const answer = await this.callApi(
      command === 'switchOn'
        ? `/resources/${resourceId}/switch-on`
        : `/resources/${resourceId}/bridge/switch-off`,
      this.settings.token,
      command === 'switchOn' ? { code: await this.currentCode(resourceId) } : {},
    );
    const body = safeJson(answer.body) as { error?: { message?: string; data?: { reason?: string } } } | null;
    const entry = {
      resource: resourceId,
      command,
      status: answer.statusCode,
      reason: body?.error?.data?.reason,
    };
    if (answer.statusCode < 300) this.logger.info(entry, 'Home Assistant: command done');
    else {
      this.logger.warn({ ...entry, message: body?.error?.message }, 'Home Assistant: command refused');
      await this.republishState(resourceId, announced);
    }
  }

  private async republishState(resourceId: number, announced: Announced): Promise<void> {
    await this.client
      ?.publishAsync(resourceTopics(this.topics, resourceId).state, announced.state, { retain: true, qos: 1 })
      .catch(() => {});
  }

  /**
   * The resource's switch-on code right now. Home Assistant stands in for the member at the
   * door, as the admin console's remote unlock does: the operator who set the token chose that.
   */
  private async currentCode(resourceId: number): Promise<string> {
    const row = await this.ctx.storage.reads.first<{ codeMode: string; switchOnCodeEncrypted: string }>(
      'select "codeMode", "switchOnCodeEncrypted" from "resources" where "id" = ?',
      [resourceId],
    );
    if (!row) return '';
    const secret = this.ctx.tokens.open(row.switchOnCodeEncrypted);
    return row.codeMode === 'totp' ? totp(secret, this.ctx.clock.now()) : secret;
  }
}

/** Waits for `promise`, but at most `ms`. */
async function withinMs(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The broker URL without its password, for the log. */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'invalid URL';
  }
}
