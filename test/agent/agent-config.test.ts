import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadAgentConfig, readApiKey } from '@makerspace/agent';
import { ConfigError } from '@makerspace/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { Teardown, tempDir, writeApiKey } from './helpers.js';

const teardown = new Teardown();
afterEach(() => teardown.closeAll());

async function writeConfig(dir: string, value: unknown): Promise<string> {
  const file = join(dir, 'config.json');
  await writeFile(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
}

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('agent config', () => {
  it('loads the example of the design (section 3) and fills defaults', async () => {
    const dir = await tempDir(teardown);
    const apiKeyFile = await writeApiKey(dir);
    const file = await writeConfig(dir, {
      hub: 'mqtt://hub.local:1883',
      resourceId: 12,
      apiKeyFile,
      controlType: 'door',
      pulseSeconds: 5,
      dataDir: '/var/lib/makerspace-agent',
      hardware: { kind: 'simulated', stateFile: '/run/makerspace-agent/relay.json' },
      cardReader: { kind: 'simulated' },
    });
    const config = loadAgentConfig(file);
    expect(config).toMatchObject({
      hub: 'mqtt://hub.local:1883',
      resourceId: 12,
      keepaliveSeconds: 10,
      accessTimeoutSeconds: 3,
      logAckTimeoutSeconds: 10,
      hardware: { kind: 'simulated' },
      cardReader: { kind: 'simulated' },
    });
    expect(readApiKey(apiKeyFile)).toBe('bridge-key-0123456789abcdef');
  });

  it('accepts every hub scheme and the real hardware kinds', async () => {
    const dir = await tempDir(teardown);
    const apiKeyFile = await writeApiKey(dir);
    for (const hub of ['mqtt://h:1883', 'mqtts://h:8883', 'ws://h:8080/mqtt', 'wss://h/mqtt']) {
      const file = await writeConfig(dir, {
        hub,
        resourceId: 1,
        apiKeyFile,
        controlType: 'machine',
        dataDir: dir,
        hardware: { kind: 'gpio', relayPin: 17, activeLow: true },
        cardReader: { kind: 'rdm6300', path: '/dev/serial0' },
      });
      expect(loadAgentConfig(file).hub).toBe(hub);
    }
  });

  it('reports every problem at once, each with its path', async () => {
    const dir = await tempDir(teardown);
    const file = await writeConfig(dir, {
      hub: 'http://hub.local',
      resourceId: -3,
      apiKeyFile: join(dir, 'missing-key'),
      controlType: 'garage',
      pulseSeconds: 0,
      hardware: { kind: 'gpio', relayPin: 99 },
      cardReader: { kind: 'laser' },
      surprise: true,
    });
    const problems = problemsOf(() => loadAgentConfig(file));
    const paths = problems.map((p) => p.slice(0, p.indexOf(':')));
    expect(paths).toEqual(
      expect.arrayContaining([
        'hub',
        'resourceId',
        'apiKeyFile',
        'controlType',
        'pulseSeconds',
        'dataDir',
        'hardware.relayPin',
        'cardReader.kind',
        '(root)',
      ]),
    );
    expect(problems.find((p) => p.startsWith('apiKeyFile'))).toContain('ENOENT');
    expect(problems.find((p) => p.startsWith('(root)'))).toContain('surprise');
  });

  it('accepts an optional feedback output of any relay kind and reports its errors with their path', async () => {
    const dir = await tempDir(teardown);
    const apiKeyFile = await writeApiKey(dir);
    const base = {
      hub: 'mqtt://127.0.0.1:1883',
      resourceId: 1,
      apiKeyFile,
      controlType: 'door',
      dataDir: dir,
      hardware: { kind: 'gpio', relayPin: 17, activeLow: true },
    };
    expect(loadAgentConfig(await writeConfig(dir, base)).feedback).toBeUndefined();
    for (const feedback of [
      { kind: 'simulated', stateFile: join(dir, 'buzzer.json') },
      { kind: 'gpio', relayPin: 27, activeLow: false },
      { kind: 'serial-relay', path: '/dev/ttyUSB0', channel: 2 },
    ]) {
      expect(loadAgentConfig(await writeConfig(dir, { ...base, feedback })).feedback).toMatchObject(feedback);
    }
    const badPinFile = await writeConfig(dir, {
      ...base,
      feedback: { kind: 'gpio', relayPin: 99, activeLow: false },
    });
    const badPin = problemsOf(() => loadAgentConfig(badPinFile));
    expect(badPin).toHaveLength(1);
    expect(badPin[0]).toMatch(/^feedback\.relayPin: /);
    const badKindFile = await writeConfig(dir, { ...base, feedback: { kind: 'horn' } });
    const badKind = problemsOf(() => loadAgentConfig(badKindFile));
    expect(badKind.map((p) => p.slice(0, p.indexOf(':')))).toEqual(['feedback.kind']);
  });

  it('refuses an API key file readable by group or others, and names the fix', async () => {
    const dir = await tempDir(teardown);
    const apiKeyFile = await writeApiKey(dir, 0o640);
    const base = {
      hub: 'mqtt://127.0.0.1:1883',
      resourceId: 1,
      apiKeyFile,
      controlType: 'door',
      dataDir: dir,
      hardware: { kind: 'simulated', stateFile: join(dir, 'relay.json') },
    };
    const file = await writeConfig(dir, base);
    const problems = problemsOf(() => loadAgentConfig(file));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^apiKeyFile: .*mode 0640.*chmod 600/);
    // The key itself never appears in the message.
    expect(problems[0]).not.toContain('bridge-key');
    await chmod(apiKeyFile, 0o604);
    expect(problemsOf(() => loadAgentConfig(file))[0]).toContain('0604');
    await chmod(apiKeyFile, 0o600);
    expect(loadAgentConfig(file).apiKeyFile).toBe(apiKeyFile);
    await chmod(apiKeyFile, 0o400);
    expect(loadAgentConfig(file).apiKeyFile).toBe(apiKeyFile);
  });

  it('reports unreadable JSON and an empty key file clearly', async () => {
    const dir = await tempDir(teardown);
    const file = await writeConfig(dir, '{"hub": ');
    expect(problemsOf(() => loadAgentConfig(file))[0]).toContain('not valid JSON');
    const empty = await writeApiKey(dir, 0o600, '');
    expect(() => readApiKey(empty)).toThrow(/empty/);
  });
});

describe('agent config: inputs', () => {
  async function machineConfig(extra: Record<string, unknown>, controlType = 'machine') {
    const dir = await tempDir(teardown);
    const apiKeyFile = await writeApiKey(dir);
    return writeConfig(dir, {
      hub: 'mqtt://hub.local:1883',
      resourceId: 12,
      apiKeyFile,
      controlType,
      dataDir: join(dir, 'data'),
      ...extra,
    });
  }

  it('accepts the simulated hardware with an inputs file and a busy input and an interlock', async () => {
    const file = await machineConfig({
      hardware: { kind: 'simulated', stateFile: 'relay.json', inputsFile: 'inputs.json' },
      inputs: [
        { name: 'busy', kind: 'busy' },
        { name: 'lid', kind: 'interlock', label: 'Lid' },
      ],
    });
    const config = loadAgentConfig(file);
    expect(config.hardware).toEqual({
      kind: 'simulated',
      stateFile: 'relay.json',
      inputsFile: 'inputs.json',
    });
    expect(config.inputs).toEqual([
      { name: 'busy', kind: 'busy' },
      { name: 'lid', kind: 'interlock', label: 'Lid' },
    ]);
    // No inputs: an empty list.
    expect(
      loadAgentConfig(await machineConfig({ hardware: { kind: 'simulated', stateFile: 'r.json' } })).inputs,
    ).toEqual([]);
  });

  it('names the path of each problem: sources, kinds that do not fit the control type, names twice', async () => {
    const noFile = await machineConfig({
      hardware: { kind: 'simulated', stateFile: 'relay.json' },
      inputs: [
        { name: 'busy', kind: 'busy' },
        { name: 'busy', kind: 'exitButton', source: { kind: 'gpio', pin: 5, activeLow: true } },
      ],
    });
    expect(problemsOf(() => loadAgentConfig(noFile))).toEqual(
      expect.arrayContaining([
        'inputs.0.source: simulated inputs are read from hardware.inputsFile, which is not set',
        'inputs.1.name: "busy" is named twice',
        'inputs.1.kind: an input of kind exitButton belongs to a door, and controlType is machine',
      ]),
    );
    const gpio = await machineConfig({
      hardware: { kind: 'gpio', relayPin: 17, activeLow: true },
      inputs: [
        { name: 'lid', kind: 'interlock' },
        { name: 'busy', kind: 'busy', source: { kind: 'gpio', pin: 99 } },
      ],
    });
    expect(problemsOf(() => loadAgentConfig(gpio))).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^inputs\.1\.source\.pin: /),
        expect.stringMatching(/^inputs\.1\.source\.activeLow: required/),
      ]),
    );
    const realWithoutSource = await machineConfig({
      hardware: { kind: 'gpio', relayPin: 17, activeLow: true },
      inputs: [{ name: 'lid', kind: 'interlock' }],
    });
    expect(problemsOf(() => loadAgentConfig(realWithoutSource))).toEqual([
      expect.stringMatching(/^inputs\.0\.source: required with real hardware/),
    ]);
  });
});
