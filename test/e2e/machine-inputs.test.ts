import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentProcess, type HubProcess, startAgentProcess, startHubProcess } from '../support/e2e.js';
import { eventually } from '../support/fake-agent.js';
import { stopAll } from '../support/processes.js';

/**
 * Machines that know they are busy, interlocks and door contacts, end to end: a hub process and
 * agent processes on the simulated hardware, whose inputs come from inputs.json (as in the
 * README's tour). Timeouts are seconds, so the machine's behaviour is watched in real time.
 */
describe('inputs end to end: idle switch-off, interlocks, door contacts', () => {
  let hub: HubProcess;
  let laser: any;
  let agent: AgentProcess;
  let door: any;
  let doorAgent: AgentProcess;
  let server: Server;
  const hooks: any[] = [];

  async function bridgeFor(resource: any) {
    expect((await hub.api('PUT', `/resources/${resource.id}/bridge`, {})).status).toBe(200);
    return (await hub.api('GET', `/resources/${resource.id}/bridge/api-key`)).body.apiKey as string;
  }

  const status = async () => (await hub.api('GET', `/resources/${laser.id}/access-check`)).body;
  const logs = async (resource: any) =>
    (await hub.api('GET', `/resource-logs?resource=${resource.id}`)).body as any[];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        hooks.push(JSON.parse(body));
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    hub = await startHubProcess({ env: { HUB_WEBHOOK_ALLOW_INSECURE: '1' } });
    const me = (await hub.api('GET', '/user/me')).body;
    laser = (
      await hub.api('POST', '/resources', {
        space: me.space,
        name: 'Laser',
        controlType: 'machine',
        idleTimeoutSeconds: 2,
        idleWarningSeconds: 2,
        pricePerTimeBusy: '1.00',
        pricePerTimeBusySeconds: 1,
        pricePerTimeIdle: '0.10',
        pricePerTimeIdleSeconds: 1,
      })
    ).body;
    expect(laser).toMatchObject({ idleTimeoutSeconds: 2, idleWarningSeconds: 2, busyGraceSeconds: null });
    agent = await startAgentProcess({
      hubUrl: `mqtt://127.0.0.1:${hub.mqttPort}`,
      resourceId: laser.id,
      apiKey: await bridgeFor(laser),
      controlType: 'machine',
      inputs: [
        { name: 'busy', kind: 'busy' },
        { name: 'lid', kind: 'interlock', label: 'Lid' },
      ],
      initialInputs: { busy: true, lid: true },
    });
    door = (
      await hub.api('POST', '/resources', {
        space: me.space,
        name: 'Workshop door',
        controlType: 'door',
        pulseSeconds: 1,
      })
    ).body;
    doorAgent = await startAgentProcess({
      hubUrl: `mqtt://127.0.0.1:${hub.mqttPort}`,
      resourceId: door.id,
      apiKey: await bridgeFor(door),
      controlType: 'door',
      inputs: [
        { name: 'door', kind: 'doorContact', label: 'Workshop door', heldOpenSeconds: 1 },
        { name: 'exit', kind: 'exitButton', label: 'Exit' },
      ],
      initialInputs: { door: false, exit: false },
    });
    await eventually(
      async () => (await status()).status.inputs.length === 2,
      10_000,
      'the laser reports its inputs',
    );
  }, 60_000);
  afterAll(async () => {
    await stopAll();
    await new Promise((resolve) => server.close(resolve));
  });

  it('keeps a busy machine on past the idle timeout, warns when it goes idle, then switches it off', async () => {
    const on = await hub.api('POST', `/resources/${laser.id}/switch-on`);
    expect(on.status).toBe(200);
    expect(agent.relay()).toBe('on');
    // Busy for longer than the idle timeout plus its warning: the machine keeps its power.
    await new Promise((r) => setTimeout(r, 5_000));
    expect(agent.relay()).toBe('on');
    expect((await status()).status.idleWarning).toBeNull();

    agent.setInputs({ busy: false, lid: true });
    // Idle for the timeout: the member's page learns when it will switch off.
    await eventually(async () => (await status()).status.idleWarning !== null, 5_000, 'the idle warning');
    const warning = (await status()).status.idleWarning;
    expect(Date.parse(warning.cutAt)).toBeGreaterThan(Date.now() - 500);
    expect(agent.relay()).toBe('on');
    await eventually(() => agent.relay() === 'off', 5_000, 'the idle switch-off');

    const session = (await logs(laser)).find((l) => l.id === on.body.resourceLog);
    await eventually(
      async () => (await hub.api('GET', `/resource-logs/${on.body.resourceLog}`)).body.stoppedAt !== null,
      5_000,
      'the stop stored',
    );
    const stopped = (await hub.api('GET', `/resource-logs/${session.id}`)).body;
    expect(stopped.stopType).toBe('automatic');
    // About 4 s idle (timeout and warning) of about 9 s.
    expect(stopped.idleDurationSeconds).toBeGreaterThanOrEqual(3);
    expect(stopped.idleDurationSeconds).toBeLessThanOrEqual(6);
    const charges = (await hub.api('GET', '/charges')).body as any[];
    const charge = charges.find((c) => c.resourceLog === session.id);
    const duration = Math.round((Date.parse(stopped.stoppedAt) - Date.parse(stopped.createdAt)) / 1000);
    const busy = duration - stopped.idleDurationSeconds;
    expect(Number(charge.price)).toBeCloseTo(busy * 1 + stopped.idleDurationSeconds * 0.1, 2);
    expect((await status()).status.idleWarning).toBeNull();
  }, 30_000);

  it('refuses switch-on while the interlock is open, names it, and ends a session when it opens', async () => {
    agent.setInputs({ busy: true, lid: false });
    await eventually(
      async () => (await status()).reason === 'interlock',
      5_000,
      'the verdict names the interlock',
    );
    const check = await status();
    expect(check).toMatchObject({ allowed: false, reason: 'interlock' });
    expect(check.message).toContain('Lid');
    expect(check.status.inputs).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'lid', label: 'Lid', kind: 'interlock', active: false }),
      ]),
    );

    // A member's card at the reader: the hub refuses it for the same reason.
    const ada = (await hub.api('POST', '/members', { firstName: 'Ada', emailAddress: 'ada@inputs.example' }))
      .body;
    const pkg = (await hub.api('POST', '/packages', { name: 'Full membership' })).body;
    await hub.api('POST', `/packages/${pkg.id}/permissions`, { type: 'everything' });
    await hub.api('POST', `/members/${ada.id}/packages`, { package: pkg.id });
    expect(
      (await hub.api('PUT', `/members/${ada.id}/key`, { type: 'em4102', token: '0A1B2C3D4E' })).status,
    ).toBeLessThan(300);
    const tap = await agent.tap('0A1B2C3D4E');
    expect(JSON.parse(tap.stdout).outcome).toMatchObject({
      result: 'denied',
      offline: false,
      reason: 'interlock',
    });
    expect((await logs(laser)).find((l) => l.member === ada.id)).toMatchObject({
      type: 'denied',
      reason: 'interlock',
    });

    const refused = await hub.api('POST', `/resources/${laser.id}/switch-on`);
    expect(refused.status).toBe(403);
    expect(refused.body.data.reason).toBe('interlock');
    expect(refused.body.message).toContain('"Lid"');
    expect(agent.relay()).toBe('off');
    const denied = (await hub.api('GET', `/resource-logs/${refused.body.data.resourceLog}`)).body;
    expect(denied).toMatchObject({ type: 'denied', reason: 'interlock' });

    agent.setInputs({ busy: true, lid: true });
    await eventually(async () => (await status()).allowed === true, 5_000, 'the interlock closed');
    const on = await hub.api('POST', `/resources/${laser.id}/switch-on`);
    expect(on.status).toBe(200);
    expect(agent.relay()).toBe('on');

    agent.setInputs({ busy: true, lid: false });
    await eventually(() => agent.relay() === 'off', 5_000, 'the session ended by the interlock');
    await eventually(
      async () =>
        (await hub.api('GET', `/resource-logs/${on.body.resourceLog}`)).body.stopType === 'interlock',
      5_000,
      'the stop stored with stopType interlock',
    );
  }, 30_000);

  it('reports a door held open (status and a webhook event) and opens the door with the exit button', async () => {
    const hook = await hub.api('POST', '/webhooks', {
      url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
      categories: ['resource'],
    });
    expect(hook.status).toBe(201);
    const doorStatus = async () => (await hub.api('GET', `/resources/${door.id}/access-check`)).body.status;

    doorAgent.setInputs({ door: true, exit: false });
    await eventually(
      async () => (await doorStatus()).inputs.find((i: any) => i.name === 'door')?.heldOpen === true,
      5_000,
      'the door reported held open',
    );
    await eventually(
      () => hooks.some((h) => h.type === 'resource_doorHeldOpen'),
      15_000,
      'the webhook event',
    );
    const event = hooks.find((h) => h.type === 'resource_doorHeldOpen');
    expect(event.details).toMatchObject({
      resource: { id: door.id, name: 'Workshop door' },
      input: { name: 'door', label: 'Workshop door' },
    });
    doorAgent.setInputs({ door: false, exit: false });
    await eventually(
      async () => (await doorStatus()).inputs.find((i: any) => i.name === 'door')?.heldOpen === false,
      5_000,
      'the door closed again',
    );

    // The exit button opens the door at once, by the agent alone, and the hub gets its log.
    doorAgent.setInputs({ door: false, exit: true });
    await eventually(() => doorAgent.relay() === 'on', 3_000, 'the door opened by the exit button');
    doorAgent.setInputs({ door: false, exit: false });
    await eventually(() => doorAgent.relay() === 'off', 5_000, 'the door closed after its pulse');
    await eventually(
      async () =>
        (await logs(door)).some((l) => l.type === 'allowed' && /Exit button "Exit"/.test(l.notes ?? '')),
      5_000,
      'the exit log',
    );
    const exit = (await logs(door)).find((l) => /Exit button/.test(l.notes ?? ''));
    expect(exit).toMatchObject({
      member: null,
      stopType: 'normal',
      metadata: { input: 'exit', exitButton: true },
    });
    // Only one held-open event for one opening.
    expect(hooks.filter((h) => h.type === 'resource_doorHeldOpen')).toHaveLength(1);
  }, 40_000);
});
