import { type InputsMessage, InputsMessage as InputsSchema } from '@makerspace/shared';
import type { HubContext } from '../context.js';
import { emitEvent } from '../db/outbox.js';
import { setBridgeInputs } from './bridge-inputs.repository.js';
import { type BridgeInputsRow, bridgeInputsRow } from './sessions.repository.js';
import { resourceEventRecordById } from './resources.js';
import { resourceAccount } from './resources.repository.js';

/*
 * The agent's inputs (busy contacts, interlocks, door contacts, exit buttons) as its `inputs`
 * message reports them: kept on the bridge record, shown in the resource's live status, read
 * by switch-on (an open interlock refuses) and turned into the `resource_doorHeldOpen` event.
 */

/** The last inputs message of a bridge; null when none came or it no longer parses. */
export function parseStoredInputs(text: string | null): InputsMessage | null {
  if (!text) return null;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = InputsSchema.safeParse(json);
  return parsed.success ? parsed.data : null;
}

/** The bridge's `inputs` message: stored; a door newly held open is an event for webhooks. */
export async function bridgeInputs(
  ctx: Pick<HubContext, 'db' | 'clock' | 'signals' | 'events' | 'storage'>,
  resourceId: number,
  message: InputsMessage,
): Promise<void> {
  const before = parseStoredInputs((await bridgeInputsRow(ctx.storage.reads, resourceId))?.inputs ?? null);
  const wasHeld = new Set(before?.inputs.filter((i) => i.heldOpen).map((i) => i.name) ?? []);
  const nowHeld = message.inputs.filter(
    (i) => i.kind === 'doorContact' && i.heldOpen && !wasHeld.has(i.name),
  );
  const at = ctx.clock.now().toISOString();
  const resource = nowHeld.length ? await resourceAccount(ctx.db, resourceId) : undefined;
  await ctx.events.transaction(async (trx) => {
    await setBridgeInputs(trx, resourceId, JSON.stringify(message), at);
    if (!resource) return;
    for (const input of nowHeld) {
      await emitEvent(trx, {
        account: resource.account,
        type: 'resource_doorHeldOpen',
        details: async () => ({
          resource: await resourceEventRecordById(trx, resourceId),
          input: { name: input.name, label: input.label },
          openSince: input.since,
        }),
      });
    }
  });
  ctx.signals.changed(resourceId);
}

/**
 * The first interlock of the resource's bridge that is not closed (open, or its state unknown),
 * by its label; null when every interlock is closed, or the bridge reports none or is offline
 * (then switch-on fails for that reason anyway). `row` is the bridge as sessions.repository.ts's
 * `bridgeInputsRow` reads it.
 */
export function openInterlock(row: BridgeInputsRow | undefined): string | null {
  if (!row || Number(row.offline) !== 0) return null;
  const inputs = parseStoredInputs(row.inputs);
  const open = inputs?.inputs.find((i) => i.kind === 'interlock' && i.active !== true);
  return open ? open.label : null;
}

/** The words of an `interlock` refusal. */
export function interlockMessage(label: string): string {
  return `The interlock "${label}" is open: close it, then switch on`;
}
