import { afterAll, beforeAll, expect, it } from 'vitest';
import { markBridgeOnline, markBridgesOffline } from '../../hub/src/resources/bridge-messages.js';
import { bridgeConfigFor } from '../../hub/src/resources/bridge-config.js';
import { bridgeInputs } from '../../hub/src/resources/bridge-inputs.js';
import { interlockAt } from '../../hub/src/resources/switch-on.js';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';

// The hub's side of machine inputs: the resource's idle settings, the bridge config that carries
// them, and the inputs an agent reports (status, interlock refusals).
describeEachDialect('machine inputs on the hub', (dialect) => {
  let t: TestHub;
  let owner: string;
  let space: number;

  beforeAll(async () => {
    t = await startTestHub(dialect);
    owner = t.owner.token;
    space = (await api('GET', '/user/me')).json().space;
  });
  afterAll(async () => {
    await t?.close();
  });

  const api = (method: string, url: string, payload?: unknown) =>
    t.call(owner, {
      method: method as any,
      url: `/api/v1${url}`,
      ...(payload === undefined ? {} : { payload: payload as any }),
    });

  async function machine(fields: Record<string, unknown> = {}) {
    const res = await api('POST', '/resources', { space, name: 'Laser', controlType: 'machine', ...fields });
    expect(res.statusCode).toBe(201);
    const r = res.json();
    await api('PUT', `/resources/${r.id}/bridge`, {});
    return r;
  }

  const inputs = (lid: boolean | null, warning: { sessionId: string; cutAt: string } | null = null) => ({
    inputs: [
      { name: 'busy', kind: 'busy' as const, label: 'busy', active: false, since: '2026-11-27T10:00:00Z' },
      { name: 'lid', kind: 'interlock' as const, label: 'Lid', active: lid, since: '2026-11-27T10:00:00Z' },
    ],
    idleWarning: warning,
  });

  it('keeps the idle settings on the resource and sends them in a machine bridge config only', async () => {
    const r = await machine({ idleTimeoutSeconds: 600, busyGraceSeconds: 1800 });
    expect(r).toMatchObject({ idleTimeoutSeconds: 600, idleWarningSeconds: null, busyGraceSeconds: 1800 });
    expect(await bridgeConfigFor(t.hub.ctx, r.id)).toMatchObject({
      idleTimeoutSeconds: 600,
      idleWarningSeconds: 60,
      busyGraceSeconds: 1800,
    });
    const put = await api('PUT', `/resources/${r.id}`, {
      lockVersion: r.lockVersion,
      idleTimeoutSeconds: null,
      idleWarningSeconds: 30,
    });
    expect(put.statusCode).toBe(200);
    const config = await bridgeConfigFor(t.hub.ctx, r.id);
    expect(config).not.toHaveProperty('idleTimeoutSeconds');
    expect(config).toMatchObject({ busyGraceSeconds: 1800 });
    // A bad value is refused with its field named and changes nothing.
    const bad = await api('PUT', `/resources/${r.id}`, {
      lockVersion: put.json().lockVersion,
      idleWarningSeconds: 7200,
    });
    expect(bad.statusCode).toBe(400);
    expect(JSON.stringify(bad.json())).toContain('idleWarningSeconds');
    expect((await api('GET', `/resources/${r.id}`)).json().idleWarningSeconds).toBe(30);
    // A door has no idle switch-off.
    const door = (
      await api('POST', '/resources', { space, name: 'Door', controlType: 'door', idleTimeoutSeconds: 60 })
    ).json();
    await api('PUT', `/resources/${door.id}/bridge`, {});
    expect(await bridgeConfigFor(t.hub.ctx, door.id)).not.toHaveProperty('idleTimeoutSeconds');
  });

  it('shows the reported inputs while the bridge is online; an open or unknown interlock refuses', async () => {
    const r = await machine();
    const ctx = t.hub.ctx;
    const reads = ctx.storage.reads;
    await markBridgeOnline(ctx, r.id);
    // Nothing reported yet: nothing to refuse.
    expect(await interlockAt(reads, r.id)).toBeNull();
    await bridgeInputs(ctx, r.id, inputs(false));
    expect(await interlockAt(reads, r.id)).toBe('Lid');
    await bridgeInputs(ctx, r.id, inputs(null));
    expect(await interlockAt(reads, r.id)).toBe('Lid');
    await bridgeInputs(ctx, r.id, inputs(true));
    expect(await interlockAt(reads, r.id)).toBeNull();
    const status = async () => (await api('GET', `/resources/${r.id}/access-check`)).json().status;
    expect((await status()).inputs).toEqual([
      expect.objectContaining({ name: 'busy', active: false, heldOpen: false }),
      expect.objectContaining({ name: 'lid', label: 'Lid', active: true }),
    ]);
    // A warning for a session that is not the running one is not shown.
    await bridgeInputs(ctx, r.id, inputs(true, { sessionId: '999999', cutAt: '2026-11-27T10:01:00Z' }));
    expect((await status()).idleWarning).toBeNull();
    // Offline, what the agent said last is stale: shown as nothing, and refuses nothing.
    await bridgeInputs(ctx, r.id, inputs(false));
    await markBridgesOffline(ctx, [r.id]);
    expect((await status()).inputs).toEqual([]);
    expect(await interlockAt(reads, r.id)).toBeNull();
  });
});
