import type { PairingRedeemed } from '@makerspace/shared';
import { randomInt } from 'node:crypto';
import type { HubContext } from '../context.js';
import { requiredRow } from '../db/records.js';
import type { Caller } from '../kernel/caller.js';
import { badRequest } from '../errors.js';
import { hashToken } from '../secrets.js';
import { releasePublicKey } from './agent-release.js';
import { createBridge, findBridge, rotateBridgeKey } from './bridges.js';
import { insertLog } from './resource-logs.js';
import type { ResourceRow } from './resources.js';
import { redeemPairingCode, replacePairing } from './pairing.repository.js';

/** How long a pairing code may be redeemed: time enough to walk to the Pi and type it. */
export const PAIRING_WINDOW_MS = 30 * 60_000;

// No 0/O, 1/I/L: the code may be typed from a screen. 16 of 31 letters: 79 bits.
const ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';

export function newPairingCode(): string {
  let code = '';
  for (let i = 0; i < 16; i++) {
    if (i > 0 && i % 4 === 0) code += '-';
    code += ALPHABET[randomInt(ALPHABET.length)];
  }
  return code;
}

/** Typed codes: case and dashes do not matter. */
const normalise = (code: string) => code.toUpperCase().replace(/-/g, '');

export async function createPairing(ctx: HubContext, caller: Caller, resource: ResourceRow) {
  const code = newPairingCode();
  const at = ctx.clock.now();
  const expiresAt = new Date(at.getTime() + PAIRING_WINDOW_MS).toISOString();
  // One code per resource at a time: a new one replaces any unredeemed earlier one.
  await ctx.db.transaction().execute(async (trx) => {
    await replacePairing(trx, {
      account: resource.account,
      resource: resource.id,
      codeHash: hashToken(normalise(code)),
      expiresAt,
      redeemedAt: null,
      createdBy: caller.memberId,
      createdAt: at.toISOString(),
    });
  });
  return {
    resource: resource.id,
    code,
    expiresAt,
    command: `makerspace-agent pair ${ctx.linkBase} ${code}`,
  };
}

/**
 * Redeems a code once: the resource's bridge gets a new API key (created if it had no bridge),
 * any agent on the old key is cut off, and the key is answered this one time. A pairing log
 * records it. Unknown, used and expired codes all get the same answer.
 */
export async function redeemPairing(ctx: HubContext, code: string) {
  const at = ctx.clock.now().toISOString();
  const result = await ctx.events.transaction(async (trx) => {
    const pairing = await redeemPairingCode(trx, hashToken(normalise(code)), at);
    if (!pairing) return null;
    const resource = await requiredRow(trx, 'resources', pairing.resource);
    let apiKey: string;
    if (await findBridge(trx, resource.id)) apiKey = await rotateBridgeKey(trx, ctx.tokens, resource.id, at);
    else {
      apiKey = (
        await createBridge(
          trx,
          ctx.tokens,
          { resource: resource.id, account: resource.account, createdBy: pairing.createdBy },
          at,
        )
      ).apiKey;
    }
    await insertLog(trx, {
      account: resource.account,
      resource: resource.id,
      type: 'pairing',
      member: pairing.createdBy,
      createdAt: at,
      stoppedAt: at,
      updatedAt: at,
      notes: 'A bridge was paired with a pairing code',
    });
    return { resource, apiKey };
  });
  if (!result)
    throw badRequest('body.code: this pairing code is unknown, used or expired', {
      validation: [{ path: 'code', message: 'unknown, used or expired' }],
    });
  ctx.bridges.disconnect(result.resource.id);
  ctx.signals.changed(result.resource.id);
  return {
    resource: result.resource.id,
    name: result.resource.name,
    controlType: result.resource.controlType as PairingRedeemed['controlType'],
    pulseSeconds: Number(result.resource.pulseSeconds ?? 5),
    apiKey: result.apiKey,
    // The agent installs only releases signed with this key (docs/OPERATIONS.md, "Updating agents").
    releaseKey: await releasePublicKey(ctx.db, ctx.tokens),
  };
}
