import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/fake-agent.js';
import {
  type AgentProcess,
  type HubProcess,
  startAgentProcess,
  startHubProcess,
  startOnlineDoorAgent,
} from '../support/e2e.js';
import { stopAll } from '../support/processes.js';

/**
 * Real processes on free ports: `makerspace-hub serve` and `makerspace-agent run` with the
 * simulated relay, talking over real sockets (DESIGN 3, 6, 7).
 */
describe('switch-on end to end: hub process, agent process, simulated relay', () => {
  let hub: HubProcess;
  let agent: AgentProcess;
  let door: any;
  let apiKey: string;
  let member: { id: number; token: string };

  beforeAll(async () => {
    hub = await startHubProcess();
    const spaces = await hub.api('GET', '/user/me');
    door = (
      await hub.api('POST', '/resources', {
        space: spaces.body.space,
        name: 'Front door',
        controlType: 'door',
        pulseSeconds: 1,
      })
    ).body;
    expect((await hub.api('PUT', `/resources/${door.id}/bridge`, {})).status).toBe(200);
    apiKey = (await hub.api('GET', `/resources/${door.id}/bridge/api-key`)).body.apiKey;
    const m = (await hub.api('POST', '/members', { firstName: 'Ada', emailAddress: 'ada@e2e.example' })).body;
    // Members use resources through a package whose permission covers them.
    const pkg = (await hub.api('POST', '/packages', { name: 'Full membership' })).body;
    expect((await hub.api('POST', `/packages/${pkg.id}/permissions`, { type: 'everything' })).status).toBe(
      201,
    );
    expect((await hub.api('POST', `/members/${m.id}/packages`, { package: pkg.id })).status).toBe(201);
    const key = (await hub.api('POST', '/api-keys', { member: m.id })).body;
    member = { id: m.id, token: (await hub.api('GET', `/api-keys/${key.id}/token`)).body.token };
    agent = await startOnlineDoorAgent(hub, door.id, apiKey);
  }, 60_000);
  afterAll(stopAll);

  const switchOn = (code: string) =>
    hub.api('POST', `/resources/${door.id}/switch-on`, { code }, member.token);

  it('opens the door with the right code and closes it after pulseSeconds', async () => {
    expect(agent.relay()).toBe('off');
    const res = await switchOn(door.switchOnCode);
    expect(res.status).toBe(200);
    expect(res.body.state).toBe('on');
    expect(agent.relay()).toBe('on');
    await eventually(() => agent.relay() === 'off', 5_000, 'door closed again');
    const log = (await hub.api('GET', `/resource-logs/${res.body.resourceLog}`)).body;
    expect(log).toMatchObject({ type: 'allowed', member: member.id });
  });

  it('denies wrong codes (403, a denied log, relay never on) and answers 429 at the 6th', async () => {
    let sawOn = false;
    const watch = setInterval(() => {
      if (agent.relay() === 'on') sawOn = true;
    }, 10);
    try {
      for (let i = 0; i < 5; i++) {
        const res = await switchOn('NOT-THE-CODE');
        expect(res.status).toBe(403);
        expect(res.body.data.reason).toBe('wrongCode');
      }
      const sixth = await switchOn('NOT-THE-CODE');
      expect(sixth.status).toBe(429);
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      clearInterval(watch);
    }
    expect(sawOn).toBe(false);
    const denied = (await hub.api('GET', `/resource-logs?resource=${door.id}&type=denied`)).body;
    expect(denied.length).toBe(6);
  });

  it('lets an admin switch a machine on and off without a code; a member still needs the code', async () => {
    const me = (await hub.api('GET', '/user/me')).body;
    const laser = (
      await hub.api('POST', '/resources', { space: me.space, name: 'Laser', controlType: 'machine' })
    ).body;
    expect((await hub.api('PUT', `/resources/${laser.id}/bridge`, {})).status).toBe(200);
    const laserKey = (await hub.api('GET', `/resources/${laser.id}/bridge/api-key`)).body.apiKey;
    const machine = await startAgentProcess({
      hubUrl: `mqtt://127.0.0.1:${hub.mqttPort}`,
      resourceId: laser.id,
      apiKey: laserKey,
      controlType: 'machine',
    });
    await eventually(
      async () => (await hub.api('GET', `/resources/${laser.id}/bridge`)).body.offline === false,
      10_000,
      'machine bridge online',
    );
    // Decisions only: the agent logs its own start (a reboot log).
    const decisions = async () =>
      (await hub.api('GET', `/resource-logs?resource=${laser.id}`)).body.filter(
        (l: any) => l.type !== 'reboot',
      );

    // A member without the code: 400 naming the field, nothing switched, nothing logged.
    const noCode = await hub.api('POST', `/resources/${laser.id}/switch-on`, {}, member.token);
    expect(noCode.status).toBe(400);
    expect(noCode.body.errors).toEqual([expect.objectContaining({ field: 'code' })]);
    expect(machine.relay()).not.toBe('on');
    expect(await decisions()).toEqual([]);

    // The admin sends no body at all: the relay switches and the log names the admin.
    const on = await hub.api('POST', `/resources/${laser.id}/switch-on`);
    expect(on.status).toBe(200);
    expect(on.body.state).toBe('on');
    expect(machine.relay()).toBe('on');
    expect((await hub.api('GET', `/resource-logs/${on.body.resourceLog}`)).body).toMatchObject({
      type: 'allowed',
      member: me.id,
      stoppedAt: null,
    });

    const off = await hub.api('POST', `/resources/${laser.id}/switch-off`);
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ state: 'off', resourceLog: on.body.resourceLog });
    expect(machine.relay()).toBe('off');
    const stopped = (await hub.api('GET', `/resource-logs/${on.body.resourceLog}`)).body;
    expect(stopped.stoppedAt).not.toBeNull();
    expect(stopped.updatedBy).toBe(me.id);

    // The member with the right code still switches, and is the one logged.
    const byMember = await hub.api(
      'POST',
      `/resources/${laser.id}/switch-on`,
      { code: laser.switchOnCode },
      member.token,
    );
    expect(byMember.status).toBe(200);
    expect((await hub.api('GET', `/resource-logs/${byMember.body.resourceLog}`)).body.member).toBe(member.id);
    expect((await hub.api('POST', `/resources/${laser.id}/switch-off`, undefined, member.token)).status).toBe(
      200,
    );
    expect(machine.relay()).toBe('off');
    await machine.proc.stop('SIGTERM');
  }, 40_000);

  it('sees a killed agent go offline, answers 503, and works again after a restart', async () => {
    const admin = (code: string) => hub.api('POST', `/resources/${door.id}/switch-on`, { code });
    await agent.proc.stop('SIGKILL');
    await eventually(
      async () => (await hub.api('GET', `/resources/${door.id}/bridge`)).body.offline === true,
      10_000,
      'bridge offline',
    );
    expect((await admin(door.switchOnCode)).status).toBe(503);

    agent = await startOnlineDoorAgent(hub, door.id, apiKey, agent.dir);
    const res = await admin(door.switchOnCode);
    expect(res.status).toBe(200);
    await eventually(() => agent.relay() === 'off', 5_000, 'door closed');
  }, 30_000);

  it('delivers logs written while the hub is down exactly once after it returns', async () => {
    const before = (await hub.api('GET', `/resource-logs?resource=${door.id}&limit=1000`)).body.length;
    expect(await hub.proc.stop('SIGTERM')).toBe(0);
    await agent.proc.waitFor(/disconnected from the hub/);
    // Two taps of an unknown card while the hub is away: decided offline, queued on disk.
    for (const token of ['0A0B0C0D0E', '0A0B0C0D0F']) {
      const tap = await agent.tap(token);
      expect(tap.code).toBe(0);
    }
    hub = await startHubProcess({
      dataDir: hub.dataDir,
      httpPort: hub.httpPort,
      mqttPort: hub.mqttPort,
      token: hub.token,
    });
    await eventually(
      async () =>
        (await hub.api('GET', `/resource-logs?resource=${door.id}&limit=1000`)).body.length >= before + 2,
      15_000,
      'offline logs',
    );
    await new Promise((r) => setTimeout(r, 1_500));
    const logs = (await hub.api('GET', `/resource-logs?resource=${door.id}&limit=1000`)).body;
    const offline = logs.filter((l: any) => l.offline);
    expect(offline).toHaveLength(2);
    expect(offline.every((l: any) => l.type === 'denied' && l.reason === 'unknownKey')).toBe(true);
    expect(logs.length).toBe(before + 2);
  }, 60_000);

  it('cuts off the agent of a deleted resource; switch-on then answers 404', async () => {
    expect((await hub.api('DELETE', `/resources/${door.id}`)).status).toBe(204);
    await agent.proc.waitFor(/disconnected from the hub/);
    expect(
      (await hub.api('POST', `/resources/${door.id}/switch-on`, { code: door.switchOnCode })).status,
    ).toBe(404);
  }, 20_000);
});
