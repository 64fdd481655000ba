import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BridgeConfig, type Logger } from '@makerspace/shared/agent';
import { writeFileAtomic } from './atomic-file.js';
import type { HubLink } from './hub-link.js';

export interface BridgeConfigStoreOptions {
  link: HubLink;
  /** The control type of the local config; a different one from the hub is reported. */
  controlType: 'door' | 'machine';
  dataDir: string;
  logger: Logger;
  /** The local config's pulse length; when the hub's differs, the log says the hub's wins. */
  pulseSeconds?: number;
}

/**
 * Keeps the hub's retained `config` message on disk (`${dataDir}/config.json`, written atomically)
 * so that the agent can decide offline after a restart without the hub (design section 7).
 */
export class BridgeConfigStore {
  private config: BridgeConfig | null = null;
  private readonly file: string;

  constructor(private readonly options: BridgeConfigStoreOptions) {
    this.file = join(options.dataDir, 'config.json');
  }

  private saving: Promise<void> = Promise.resolve();
  private readonly listeners = new Set<(config: BridgeConfig) => void>();

  /** Called after each new config from the hub is saved. */
  onChange(listener: (config: BridgeConfig) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get current(): BridgeConfig | null {
    return this.config;
  }

  async start(): Promise<void> {
    await this.load();
    // One save at a time, in the order the configs came: two writes of the file must not race.
    this.options.link.handle('config', (config) => {
      const saved = this.saving.then(() => this.save(config));
      this.saving = saved.catch(() => {});
      return saved;
    });
  }

  /** Waits for a save under way, so that a restart finds the last config received. */
  async stop(): Promise<void> {
    await this.saving;
  }

  private async load(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        this.options.logger.warn(
          { file: this.file, err: (err as Error).message },
          'saved bridge config unreadable',
        );
      }
      return;
    }
    try {
      this.config = BridgeConfig.parse(JSON.parse(text));
      this.options.logger.info({ configVersion: this.config.configVersion }, 'saved bridge config loaded');
    } catch (err) {
      this.options.logger.warn(
        { file: this.file, err: (err as Error).message },
        'saved bridge config invalid; ignored',
      );
    }
  }

  private async save(config: BridgeConfig): Promise<void> {
    const text = JSON.stringify(config);
    if (this.config && JSON.stringify(this.config) === text) return;
    if (config.controlType !== this.options.controlType) {
      // The wiring is local: a door relay does not become a machine because the hub says so.
      this.options.logger.warn(
        { hub: config.controlType, local: this.options.controlType },
        'the hub names another control type for this resource; the local config is used',
      );
    }
    const local = this.options.pulseSeconds;
    if (
      local !== undefined &&
      config.pulseSeconds !== local &&
      config.pulseSeconds !== this.config?.pulseSeconds
    ) {
      this.options.logger.info(
        { hub: config.pulseSeconds, local },
        `the hub's pulseSeconds (${config.pulseSeconds}) overrides the local setting (${local})`,
      );
    }
    await writeFileAtomic(this.file, text);
    this.config = config;
    for (const listener of this.listeners) listener(config);
    this.options.logger.info(
      { configVersion: config.configVersion, offlineKeys: config.offlineKeys.length },
      'bridge config received and saved',
    );
  }
}
