import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { offlineKeyHash, offlineKeySecret } from '@makerspace/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentProcess, type HubProcess, startHubProcess, startOnlineDoorAgent } from '../support/e2e.js';
import { eventually } from '../support/fake-agent.js';
import { stopAll } from '../support/processes.js';

/**
 * Key cards with real processes (issue 7): `makerspace-hub serve` and `makerspace-agent run`
 * with the simulated relay and reader; `makerspace-agent tap` plays the card.
 */
describe('key cards end to end: tap at a door, key assignment, offline mode', () => {
  let apiKey: string;
  let hub: HubProcess;
  let agent: AgentProcess;
  let door: any;
  let ada: any;
  let lou: any;

  async function newMember(firstName: string, pkg: number, state: 'active' | 'locked' = 'active') {
    const m = (
      await hub.api('POST', '/members', {
        firstName,
        emailAddress: `${firstName.toLowerCase()}@cards.example`,
        state,
      })
    ).body;
    expect((await hub.api('POST', `/members/${m.id}/packages`, { package: pkg })).status).toBe(201);
    return m;
  }

  /** Taps a card and watches the relay meanwhile. */
  async function tap(token: string) {
    let sawOn = false;
    const watch = setInterval(() => {
      if (agent.relay() === 'on') sawOn = true;
    }, 10);
    try {
      const res = await agent.tap(token);
      expect(res.code).toBe(0);
      const outcome = JSON.parse(res.stdout).outcome;
      if (agent.relay() === 'on') sawOn = true;
      return { outcome, sawOn: () => sawOn };
    } finally {
      setTimeout(() => clearInterval(watch), 300);
    }
  }

  const lastLog = async () =>
    (await hub.api('GET', `/resource-logs?resource=${door.id}&order=desc&limit=1`)).body[0];

  beforeAll(async () => {
    hub = await startHubProcess();
    const me = (await hub.api('GET', '/user/me')).body;
    door = (
      await hub.api('POST', '/resources', {
        space: me.space,
        name: 'Front door',
        controlType: 'door',
        pulseSeconds: 1,
      })
    ).body;
    expect((await hub.api('PUT', `/resources/${door.id}/bridge`, {})).status).toBe(200);
    apiKey = (await hub.api('GET', `/resources/${door.id}/bridge/api-key`)).body.apiKey;
    const pkg = (await hub.api('POST', '/packages', { name: 'Full membership' })).body;
    expect((await hub.api('POST', `/packages/${pkg.id}/permissions`, { type: 'everything' })).status).toBe(
      201,
    );
    ada = await newMember('Ada', pkg.id);
    lou = await newMember('Lou', pkg.id, 'locked');
    expect(
      (await hub.api('PUT', `/members/${ada.id}/key`, { type: 'em4102', token: '0A1B2C3D4E' })).status,
    ).toBe(200);
    expect(
      (await hub.api('PUT', `/members/${lou.id}/key`, { type: 'em4102', token: '0C0C0C0C0C' })).status,
    ).toBe(200);
    agent = await startOnlineDoorAgent(hub, door.id, apiKey);
  }, 60_000);
  afterAll(stopAll);

  it('opens the door for a member card (relay on, then off) and logs allowed', async () => {
    const { outcome, sawOn } = await tap('0A1B2C3D4E');
    expect(outcome).toMatchObject({ result: 'allowed', offline: false, action: 'pulsed' });
    expect(sawOn()).toBe(true);
    await eventually(() => agent.relay() === 'off', 5_000, 'door closed again');
    expect(await lastLog()).toMatchObject({ type: 'allowed', member: ada.id, offline: false });
  });

  it('keeps the door shut for an unknown card (unknownKey) and a locked member (memberInactive)', async () => {
    for (const [token, reason, member] of [
      ['0D0D0D0D0D', 'unknownKey', null],
      ['0C0C0C0C0C', 'memberInactive', lou.id],
    ] as const) {
      const { outcome, sawOn } = await tap(token);
      expect(outcome).toMatchObject({ result: 'denied', offline: false, reason });
      await new Promise((r) => setTimeout(r, 300));
      expect(sawOn()).toBe(false);
      expect(await lastLog()).toMatchObject({ type: 'denied', reason, member });
    }
  });

  it('assigns the next unknown card to a member, whose next tap opens the door', async () => {
    const pkg = (await hub.api('GET', '/packages')).body[0];
    const bo = await newMember('Bo', pkg.id);
    const started = await hub.api('POST', '/key-assignments', { member: bo.id, resource: door.id });
    expect(started.status).toBe(201);
    const { outcome, sawOn } = await tap('B0B0B0B0B0');
    expect(outcome).toMatchObject({ result: 'message', messages: ['Key assigned to Bo'] });
    expect(sawOn()).toBe(false);
    expect((await hub.api('GET', `/members/${bo.id}/key`)).body).toMatchObject({ token: 'B0B0B0B0B0' });
    expect(await lastLog()).toMatchObject({ type: 'keyAssigned', member: bo.id });
    const next = await tap('B0B0B0B0B0');
    expect(next.outcome).toMatchObject({ result: 'allowed', action: 'pulsed' });
    expect(next.sawOn()).toBe(true);
    await eventually(() => agent.relay() === 'off', 5_000, 'door closed again');
  });

  it('decides from offline keys while the hub is down, and the hub stores those decisions once', async () => {
    const saved = join(agent.dir, 'data', 'config.json');
    const secret = offlineKeySecret(apiKey);
    const adaHash = offlineKeyHash({ type: 'em4102', token: '0A1B2C3D4E' }, secret);
    await eventually(
      () => existsSync(saved) && JSON.parse(readFileSync(saved, 'utf8')).offlineKeys.includes(adaHash),
      10_000,
      "Ada's key in the agent's saved config",
    );
    expect(JSON.parse(readFileSync(saved, 'utf8')).offlineKeys).not.toContain(
      offlineKeyHash({ type: 'em4102', token: '0C0C0C0C0C' }, secret),
    );
    const before = (await hub.api('GET', `/resource-logs?resource=${door.id}&limit=1000`)).body.length;

    expect(await hub.proc.stop('SIGTERM')).toBe(0);
    await agent.proc.waitFor(/disconnected from the hub/);
    const tappedFrom = new Date().toISOString();
    const allowed = await tap('0A1B2C3D4E');
    expect(allowed.outcome).toMatchObject({ result: 'allowed', offline: true, action: 'pulsed' });
    expect(allowed.sawOn()).toBe(true);
    await eventually(() => agent.relay() === 'off', 5_000, 'door closed again');
    const denied = await tap('0C0C0C0C0C');
    expect(denied.outcome).toMatchObject({ result: 'denied', offline: true, reason: 'unknownKey' });
    await new Promise((r) => setTimeout(r, 300));
    expect(denied.sawOn()).toBe(false);
    const tappedUntil = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 500));

    hub = await startHubProcess({
      dataDir: hub.dataDir,
      httpPort: hub.httpPort,
      mqttPort: hub.mqttPort,
      token: hub.token,
    });
    const all = async () => (await hub.api('GET', `/resource-logs?resource=${door.id}&limit=1000`)).body;
    await eventually(async () => (await all()).length >= before + 2, 20_000, 'offline logs delivered');
    // Resent batches (acks lost at the restart) must not add rows.
    await new Promise((r) => setTimeout(r, 1_500));
    const logs = await all();
    expect(logs.length).toBe(before + 2);
    const offline = logs
      .filter((l: any) => l.offline)
      .sort((a: any, b: any) => a.createdAt.localeCompare(b.createdAt));
    expect(offline).toHaveLength(2);
    expect(offline[0]).toMatchObject({ type: 'allowed', member: ada.id });
    expect(offline[1]).toMatchObject({ type: 'denied', reason: 'unknownKey', member: lou.id });
    for (const l of offline) {
      expect(l.createdAt >= tappedFrom && l.createdAt <= tappedUntil).toBe(true);
    }
  }, 90_000);
});
