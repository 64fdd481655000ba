import type { HubContext } from '../context.js';
import { setDuplicateDevice } from './bridges.repository.js';
import { insertLog } from './resource-logs.js';

/**
 * Shows admins that two devices use one bridge key: the bridge record's `duplicateDeviceAt` and
 * `duplicateDeviceAddresses`, and, once per episode, a `pairing` resource log that says what to do.
 */
export async function recordDuplicateDevice(
  ctx: HubContext,
  resourceId: number,
  seen: { addresses: [string, string]; takeovers: number; firstOfEpisode: boolean },
): Promise<void> {
  const at = ctx.clock.now().toISOString();
  await ctx.events.transaction(async (trx) => {
    const bridge = await setDuplicateDevice(trx, resourceId, seen.addresses, at);
    if (!bridge || !seen.firstOfEpisode) return;
    await insertLog(trx, {
      account: bridge.account,
      resource: resourceId,
      type: 'pairing',
      createdAt: at,
      stoppedAt: at,
      updatedAt: at,
      notes: `Two devices use this bridge's key (${seen.addresses.join(' and ')}): they took the connection from each other ${seen.takeovers} times within a minute. Pair the real device again (a new key cuts the other one off).`,
      metadata: { duplicateDevice: { addresses: seen.addresses, takeovers: seen.takeovers } },
    });
  });
  ctx.signals.changed(resourceId);
}
