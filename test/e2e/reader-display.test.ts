import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentProcess, type HubProcess, startAgentProcess, startHubProcess } from '../support/e2e.js';
import { eventually } from '../support/fake-agent.js';
import { stopAll, tempDir } from '../support/processes.js';

/**
 * Real processes: the hub's display lines travel over MQTT to `makerspace-agent run`, whose
 * simulated 16x2 display (a file) shows what an LCD at the reader would.
 */
describe('reader display end to end: hub process, agent process, simulated LCD', () => {
  let hub: HubProcess;
  let agent: AgentProcess;
  let displayFile: string;

  const shown = (): string[] | null => {
    try {
      return JSON.parse(readFileSync(displayFile, 'utf8')).lines;
    } catch {
      return null;
    }
  };

  beforeAll(async () => {
    hub = await startHubProcess();
    const me = (await hub.api('GET', '/user/me')).body;
    const door = (
      await hub.api('POST', '/resources', {
        space: me.space,
        name: 'Workshop door',
        controlType: 'door',
        pulseSeconds: 1,
      })
    ).body;
    await hub.api('PUT', `/resources/${door.id}/bridge`, {});
    const apiKey = (await hub.api('GET', `/resources/${door.id}/bridge/api-key`)).body.apiKey;
    const pkg = (await hub.api('POST', '/packages', { name: 'Full membership' })).body;
    await hub.api('POST', `/packages/${pkg.id}/permissions`, { type: 'everything' });
    const ada = (
      await hub.api('POST', '/members', {
        firstName: 'Ada',
        lastName: 'Lovelace',
        emailAddress: 'ada@lcd.example',
      })
    ).body;
    await hub.api('POST', `/members/${ada.id}/packages`, { package: pkg.id });
    await hub.api('PUT', `/members/${ada.id}/key`, { type: 'em4102', token: '0A1B2C3D4E' });
    const dir = tempDir('agent-');
    displayFile = join(dir, 'display.json');
    agent = await startAgentProcess({
      hubUrl: `mqtt://127.0.0.1:${hub.mqttPort}`,
      resourceId: door.id,
      apiKey,
      controlType: 'door',
      dir,
      config: { display: { kind: 'simulated', file: displayFile, columns: 16, rows: 2 } },
    });
  }, 60_000);
  afterAll(stopAll);

  it('shows the resource name, then the member the hub names, then the reason of a denial', async () => {
    await eventually(() => shown()?.[0] === 'Workshop door', 10_000, 'the idle line');
    const allowed = await agent.tap('0A1B2C3D4E');
    expect(JSON.parse(allowed.stdout).outcome.messages).toEqual(['Ada', 'Lovelace']);
    await eventually(
      () => JSON.stringify(shown()) === JSON.stringify(['Ada Lovelace', 'Door open']),
      5_000,
      'welcome',
    );
    const denied = await agent.tap('0D0D0D0D0D');
    expect(JSON.parse(denied.stdout).outcome.result).toBe('denied');
    await eventually(
      () => JSON.stringify(shown()) === JSON.stringify(['Unknown key card', '']),
      5_000,
      'reason',
    );
    await eventually(() => shown()?.[0] === 'Workshop door', 10_000, 'back to idle');
  }, 40_000);
});
