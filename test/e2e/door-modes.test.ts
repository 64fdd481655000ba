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

const two = (n: number) => String(n).padStart(2, '0');

/**
 * A door held unlocked during opening hours (unlockMode openingHours) with real processes: the
 * hub on its own clock, the agent with the simulated relay. The space (in UTC) opens today until
 * the next full minute, so the window is a few seconds long and the agent relocks at its end, by
 * itself: the hub is stopped and the agent restarted within the window.
 */
describe('door modes end to end: held unlocked during opening hours, relocked at closing time', () => {
  let hub: HubProcess;
  let agent: AgentProcess;
  let door: any;
  let closesAt: Date;
  let apiKey: string;

  beforeAll(async () => {
    // Leave at least 15 s before the closing minute.
    if (new Date().getUTCSeconds() > 45)
      await new Promise((r) => setTimeout(r, (61 - new Date().getUTCSeconds()) * 1000));
    hub = await startHubProcess();
    const me = (await hub.api('GET', '/user/me')).body;
    const space = (await hub.api('GET', `/spaces/${me.space}`)).body;
    expect(
      (await hub.api('PUT', `/spaces/${me.space}`, { timezone: 'UTC', lockVersion: space.lockVersion }))
        .status,
    ).toBe(200);
    const now = new Date();
    closesAt = new Date(Math.floor(now.getTime() / 60_000) * 60_000 + 60_000);
    const dayOfWeek = ((now.getUTCDay() + 6) % 7) + 1;
    const untilTime =
      closesAt.getUTCDate() !== now.getUTCDate()
        ? '24:00'
        : `${two(closesAt.getUTCHours())}:${two(closesAt.getUTCMinutes())}`;
    expect(
      (
        await hub.api('PUT', `/spaces/${me.space}/opening-hours`, [
          { dayOfWeek, fromTime: '00:00', untilTime },
        ])
      ).status,
    ).toBe(200);
    door = (
      await hub.api('POST', '/resources', {
        space: me.space,
        name: 'Front door',
        controlType: 'door',
        pulseSeconds: 1,
        unlockMode: 'openingHours',
      })
    ).body;
    expect(door.unlockMode).toBe('openingHours');
    expect((await hub.api('PUT', `/resources/${door.id}/bridge`, {})).status).toBe(200);
    apiKey = (await hub.api('GET', `/resources/${door.id}/bridge/api-key`)).body.apiKey;
    agent = await startOnlineDoorAgent(hub, door.id, apiKey);
  }, 120_000);
  afterAll(stopAll);

  it('holds the relay on while the space is open, also across an agent restart without the hub, and relocks at closing time by itself', async () => {
    await eventually(() => agent.relay() === 'on', 10_000, 'door held unlocked');
    // Longer than a pulse: the door stays unlocked.
    await new Promise((r) => setTimeout(r, 1500));
    expect(agent.relay()).toBe('on');

    // The hub goes away, then the agent restarts: the saved config holds the door again.
    expect(await hub.proc.stop('SIGTERM')).toBe(0);
    await new Promise((r) => setTimeout(r, 500));
    expect(agent.relay()).toBe('on');
    expect(await agent.proc.stop('SIGTERM')).toBe(0);
    expect(agent.relay()).toBe('off');
    agent = await startAgentProcess({
      hubUrl: `mqtt://127.0.0.1:${hub.mqttPort}`,
      resourceId: door.id,
      apiKey,
      controlType: 'door',
      dir: agent.dir,
      waitFor: 'started',
    });
    await eventually(() => agent.relay() === 'on', 5_000, 'held again after the restart, without the hub');
    expect(Date.now()).toBeLessThan(closesAt.getTime());

    await eventually(
      () => agent.relay() === 'off',
      closesAt.getTime() - Date.now() + 10_000,
      'relocked at closing',
    );
    // Not before closing time (the hub's and the agent's clocks are the same machine's).
    expect(Date.now()).toBeGreaterThanOrEqual(closesAt.getTime() - 1000);

    // The hub comes back: the agent delivers the hold's log, stopped at the window's end. It was
    // away for most of a minute, so the agent's reconnect backoff may have reached its cap (30 s,
    // with jitter) before the hub listens again.
    hub = await startHubProcess({
      dataDir: hub.dataDir,
      httpPort: hub.httpPort,
      mqttPort: hub.mqttPort,
      token: hub.token,
    });
    const hold = await eventually(
      async () => {
        const logs = (await hub.api('GET', `/resource-logs?resource=${door.id}`)).body as any[];
        return logs.find((l) => l.type === 'allowed' && l.member === null && l.stoppedAt !== null);
      },
      45_000,
      'the hold log, stopped',
    );
    expect(hold.stopType).toBe('automatic');
    // The agent's own time of the window's end (the hub's closing time plus the clock offset it
    // learnt at connect: here both clocks are this machine's, so within a second).
    expect(Math.abs(Date.parse(hold.stoppedAt) - closesAt.getTime())).toBeLessThan(1000);
    // One hold, one log, whatever the restart.
    const holds = ((await hub.api('GET', `/resource-logs?resource=${door.id}`)).body as any[]).filter(
      (l) => l.type === 'allowed' && l.member === null,
    );
    expect(holds).toHaveLength(1);
    // After closing it stays locked.
    await new Promise((r) => setTimeout(r, 1500));
    expect(agent.relay()).toBe('off');
  }, 150_000);
});
