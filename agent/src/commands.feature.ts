import type { Command, CommandReply, Logger } from '@makerspace/shared/agent';
import type { HubLink } from './hub-link.js';
import type { RelayController } from './relay.controller.js';

export interface CommandsFeatureOptions {
  link: HubLink;
  relay: RelayController;
  logger: Logger;
  /** Door pulse length when the command names none (the bridge config's, else the agent config's). */
  pulseSeconds: () => number;
  now?: () => Date;
}

/** How many recent command ids are remembered, so a QoS 1 redelivery does not switch twice. */
const REMEMBERED_COMMANDS = 200;

/**
 * Executes the hub's `commands` and answers each on `replies` once the relay has switched (or
 * failed), with the real resulting state (design section 6). Expired commands are logged and
 * ignored: no reply, since the hub has given up on them. A command already carried out is
 * answered again from memory, also after its expiry: that is how a restarted hub learns whether
 * a switch-on it sent went through.
 */
export class CommandsFeature {
  private readonly done = new Map<string, CommandReply>();
  private readonly now: () => Date;

  constructor(private readonly options: CommandsFeatureOptions) {
    this.now = options.now ?? (() => new Date());
  }

  async start(): Promise<void> {
    this.options.link.handle('commands', (command) => this.execute(command));
  }

  async stop(): Promise<void> {}

  async execute(command: Command): Promise<void> {
    const { logger, link } = this.options;
    let reply = this.done.get(command.id);
    if (reply) {
      // Also past its expiry: the hub asks again after a restart to learn what became of it.
      logger.info({ commandId: command.id }, 'repeated command: answering again without switching');
    } else if (Date.parse(command.expiresAt) <= this.now().getTime()) {
      logger.warn(
        { commandId: command.id, type: command.type, expiresAt: command.expiresAt },
        'expired command ignored',
      );
      return;
    } else {
      reply = await this.run(command);
      this.done.set(command.id, reply);
      if (this.done.size > REMEMBERED_COMMANDS) this.done.delete(this.done.keys().next().value!);
    }
    await link.publish('replies', reply).catch((err) => {
      logger.warn({ commandId: command.id, err: err.message }, 'reply not published');
    });
  }

  private async run(command: Command): Promise<CommandReply> {
    const { relay, logger } = this.options;
    try {
      const state = await this.switch(command);
      logger.info({ commandId: command.id, type: command.type, relay: state.relay }, 'command executed');
      return { id: command.id, ok: true, state };
    } catch (err) {
      const error = (err as Error).message;
      logger.error({ commandId: command.id, type: command.type, error }, 'command failed');
      return { id: command.id, ok: false, state: relay.state(), error };
    }
  }

  private switch(command: Command) {
    const { relay } = this.options;
    const sessionId = command.sessionId ?? null;
    switch (command.type) {
      case 'pulse':
        return relay.pulse(command.seconds ?? this.options.pulseSeconds(), sessionId);
      case 'switchOff':
        return relay.switchOff();
      case 'switchOn':
        if (relay.controlType === 'door')
          return relay.pulse(command.seconds ?? this.options.pulseSeconds(), sessionId);
        if (!sessionId) throw new Error('switchOn of a machine needs a sessionId');
        return relay.startSession({
          id: sessionId,
          memberId: command.member?.id ?? null,
          maxDuration: command.maxDuration ?? null,
        });
    }
  }
}
