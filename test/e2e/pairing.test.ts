import { execFileSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HubProcess, startHubProcess } from '../support/e2e.js';
import { eventually } from '../support/fake-agent.js';
import { agentCli, runProcess, startProcess, stopAll, tempDir } from '../support/processes.js';

/** `makerspace-agent pair <hub URL> <code>` against a real hub, then `run` with what it wrote. */
describe('pairing a new Pi with a one-use code (real hub and agent)', () => {
  let hub: HubProcess;
  let door: { id: number; name: string };
  let memberToken: string;

  beforeAll(async () => {
    hub = await startHubProcess();
    const space = (await hub.api('GET', '/user/me')).body.space;
    door = (await hub.api('POST', '/resources', { space, name: 'Side door', controlType: 'door' })).body;
    const m = (await hub.api('POST', '/members', { firstName: 'Bo', emailAddress: 'bo@pair.example' })).body;
    const key = (await hub.api('POST', '/api-keys', { member: m.id })).body;
    memberToken = (await hub.api('GET', `/api-keys/${key.id}/token`)).body.token;
  }, 60_000);
  afterAll(stopAll);

  const pairCommand = (args: string[]) => runProcess([agentCli, 'pair', ...args], {});

  it('pairs: the key file is 0600, the config is complete, the bridge comes online; the code works once', async () => {
    const created = await hub.api('POST', `/resources/${door.id}/bridge/pairing-codes`);
    expect(created.status).toBe(201);
    expect(created.body.command).toBe(
      `makerspace-agent pair http://localhost:${hub.httpPort} ${created.body.code}`,
    );
    const dir = tempDir('pair-');
    const base = `http://127.0.0.1:${hub.httpPort}`;
    const out = await pairCommand([base, created.body.code, '--dir', dir, '--data-dir', join(dir, 'data')]);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('Paired with "Side door"');
    const keyFile = join(dir, 'api-key');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const apiKey = readFileSync(keyFile, 'utf8').trim();
    // The key never appears in the output.
    expect(out.stdout).not.toContain(apiKey);
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    expect(config).toMatchObject({
      hub: `ws://127.0.0.1:${hub.httpPort}/mqtt`,
      resourceId: door.id,
      apiKeyFile: keyFile,
      controlType: 'door',
    });
    // Make the simulated agent quick to notice things, as the other e2e agents are.
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, keepaliveSeconds: 2 }));
    const agent = startProcess([agentCli, 'run', '--config', join(dir, 'config.json')], {});
    await agent.waitFor(/connected to the hub/);
    await eventually(
      async () => (await hub.api('GET', `/resources/${door.id}/bridge`)).body.offline === false,
      10_000,
      'paired bridge online',
    );
    // The pairing is in the resource's log, by the admin who made the code.
    const logs = (await hub.api('GET', `/resource-logs?resource=${door.id}&type=pairing`)).body;
    expect(logs).toHaveLength(1);

    // Used once: a second redemption is refused and changes nothing.
    const again = await pairCommand([base, created.body.code, '--dir', tempDir('pair-')]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('unknown, used or expired');
    expect((await hub.api('GET', `/resources/${door.id}/bridge/api-key`)).body.apiKey).toBe(apiKey);
    await agent.stop();
  });

  it.skipIf(process.getuid?.() !== 0)(
    'run as root, pairing gives the key and config to the service user (--user), still 0600; without one it warns',
    async () => {
      const base = `http://127.0.0.1:${hub.httpPort}`;
      const code = (await hub.api('POST', `/resources/${door.id}/bridge/pairing-codes`)).body.code;
      const dir = tempDir('pair-');
      const out = await pairCommand([
        base,
        code,
        '--dir',
        dir,
        '--data-dir',
        join(dir, 'data'),
        '--user',
        'nobody',
      ]);
      expect(out.stderr).toBe('');
      expect(out.code).toBe(0);
      expect(out.stdout).toContain(`Key: ${join(dir, 'api-key')} (mode 0600, owned by nobody)`);
      expect(out.stdout).toContain(`Config: ${join(dir, 'config.json')} (mode 0600, owned by nobody)`);
      const nobody = Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' }));
      for (const file of ['api-key', 'config.json']) {
        const st = statSync(join(dir, file));
        expect(st.uid).toBe(nobody);
        expect(st.mode & 0o777).toBe(0o600);
      }

      // No such user: refused before the code is used.
      const next = (await hub.api('POST', `/resources/${door.id}/bridge/pairing-codes`)).body.code;
      const noUser = await pairCommand([base, next, '--dir', tempDir('pair-'), '--user', 'no-such-user-x']);
      expect(noUser.code).toBe(2);
      expect(noUser.stderr).toMatch(/--user: there is no user no-such-user-x/);
      // Without --user and without a makerspace-agent user, the files stay root's and it says so.
      const plain = await pairCommand([base, next, '--dir', tempDir('pair-')]);
      expect(plain.code).toBe(0);
      expect(plain.stdout).toMatch(/owned by root: the agent's service user cannot read them/);
    },
  );

  it('a new code replaces the old one; pairing again rotates the key and cuts off the old agent', async () => {
    const first = (await hub.api('POST', `/resources/${door.id}/bridge/pairing-codes`)).body;
    const second = (await hub.api('POST', `/resources/${door.id}/bridge/pairing-codes`)).body;
    const redeem = (code: string) =>
      fetch(`${hub.base}/bridge-pairings/redeem`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code }),
      });
    expect((await redeem(first.code)).status).toBe(400);
    const before = (await hub.api('GET', `/resources/${door.id}/bridge/api-key`)).body.apiKey;
    // Typed codes: lower case works too.
    const res = await redeem(second.code.toLowerCase());
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.apiKey).not.toBe(before);
    expect((await hub.api('GET', `/resources/${door.id}/bridge/api-key`)).body.apiKey).toBe(body.apiKey);
  });

  it('refuses bad input and non-admins, and asks for no credentials only to redeem', async () => {
    const bad = await fetch(`${hub.base}/bridge-pairings/redeem`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: 'x' }),
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).message).toContain('body.code');
    const asMember = await hub.api(
      'POST',
      `/resources/${door.id}/bridge/pairing-codes`,
      undefined,
      memberToken,
    );
    expect(asMember.status).toBe(403);
    const unknownResource = await hub.api('POST', '/resources/999999/bridge/pairing-codes');
    expect(unknownResource.status).toBe(404);
    const noHub = await pairCommand(['ftp://hub.example', 'ABCD-EFGH-JKMN-PQRS', '--dir', tempDir('pair-')]);
    expect(noHub.code).toBe(2);
    expect(noHub.stderr).toContain('http:// or https://');
  });
});
