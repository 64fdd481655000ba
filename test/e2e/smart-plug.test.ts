import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/fake-agent.js';
import { type HubProcess, startAgentProcess, startHubProcess } from '../support/e2e.js';
import { stopAll, unitNodeFlags } from '../support/processes.js';
import { ShellyGen2Simulator } from '../support/shelly-gen2-simulator.js';

/**
 * Real processes: `makerspace-hub serve` and `makerspace-agent run` whose relay is a Shelly plug
 * (the simulator of Shelly's published RPC, on 127.0.0.1). A member's switch-on powers the plug;
 * the plug that stops answering ends the session on the hub, with the reason in the logs.
 */
describe('smart plug end to end: hub process, agent process, Shelly plug simulator', () => {
  let hub: HubProcess;
  let sim: ShellyGen2Simulator;
  let laser: any;
  let member: { id: number; token: string };

  beforeAll(async () => {
    sim = new ShellyGen2Simulator();
    const host = await sim.start();
    hub = await startHubProcess();
    const me = (await hub.api('GET', '/user/me')).body;
    laser = (await hub.api('POST', '/resources', { space: me.space, name: 'Laser', controlType: 'machine' }))
      .body;
    expect((await hub.api('PUT', `/resources/${laser.id}/bridge`, {})).status).toBe(200);
    const apiKey = (await hub.api('GET', `/resources/${laser.id}/bridge/api-key`)).body.apiKey;
    const m = (await hub.api('POST', '/members', { firstName: 'Grace', emailAddress: 'grace@e2e.example' }))
      .body;
    const pkg = (await hub.api('POST', '/packages', { name: 'Full membership' })).body;
    await hub.api('POST', `/packages/${pkg.id}/permissions`, { type: 'everything' });
    await hub.api('POST', `/members/${m.id}/packages`, { package: pkg.id });
    const key = (await hub.api('POST', '/api-keys', { member: m.id })).body;
    member = { id: m.id, token: (await hub.api('GET', `/api-keys/${key.id}/token`)).body.token };
    await startAgentProcess({
      hubUrl: `mqtt://127.0.0.1:${hub.mqttPort}`,
      resourceId: laser.id,
      apiKey,
      controlType: 'machine',
      hardware: { kind: 'shelly', host, deadManSeconds: 3, pollSeconds: 0.5, timeoutMs: 400 },
      // As the systemd unit runs it: lite mode has no WebAssembly (so no fetch).
      nodeArgs: unitNodeFlags('makerspace-agent.service'),
    });
    await eventually(
      async () => (await hub.api('GET', `/resources/${laser.id}/bridge`)).body.offline === false,
      10_000,
      'bridge online',
    );
  }, 60_000);
  afterAll(async () => {
    await stopAll();
    await sim.stop();
  });

  it('switches the plug on for a session; a plug that stops answering ends it, safe and logged', async () => {
    const on = await hub.api(
      'POST',
      `/resources/${laser.id}/switch-on`,
      { code: laser.switchOnCode },
      member.token,
    );
    expect(on.status).toBe(200);
    expect(on.body.state).toBe('on');
    expect(sim.output).toBe(true);
    expect(sim.lastToggleAfter()).toBe(3);

    sim.stopAnswering();
    const stopped = await eventually(
      async () => {
        const log = (await hub.api('GET', `/resource-logs/${on.body.resourceLog}`)).body;
        return log.stoppedAt ? log : undefined;
      },
      10_000,
      'the session stopped on the hub',
    );
    expect(stopped.stopType).toBe('offline');
    const offline = (await hub.api('GET', `/resource-logs?resource=${laser.id}&type=offline`)).body;
    expect(offline).toEqual([
      expect.objectContaining({ notes: expect.stringMatching(/Shelly plug .* not answering/) }),
    ]);
    // Without the agent's renewals the plug's own timer switches the laser off.
    await eventually(() => sim.output === false, 5_000, 'the plug off by its own timer');
  }, 40_000);
});
