import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bridgeTopic } from '@makerspace/shared';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { compareVersions } from '../../hub/src/resources/agent-release.js';
import { describeEachDialect } from '../support/dialects.js';
import { connectFakeAgent, eventually, type FakeAgent } from '../support/fake-agent.js';
import { startTestHub, type TestHub } from '../support/hub.js';
import { tempDir } from '../support/processes.js';

/** The hub's side of agent updates: the routes, the update message, the download, the progress. */
describeEachDialect(
  'agent updates through the REST API and MQTT (hub, bridge played by the test)',
  (dialect) => {
    let t: TestHub;
    let urls: Awaited<ReturnType<TestHub['listen']>>;
    let dir: string;
    let member: { token: string };
    let space: number;
    /** How far the hub's clock runs ahead of the machine's. */
    let ahead = 0;
    const bundle = Buffer.from('the bytes of a release bundle');
    const agents: FakeAgent[] = [];

    const api = (method: 'GET' | 'POST', url: string, payload?: object, token = t.owner.token) =>
      t.call(token, { method, url: `/api/v1${url}`, ...(payload ? { payload } : {}) });
    const machineWithBridge = async (name: string) => {
      const r = (await api('POST', '/resources', { space, name, controlType: 'machine' })).json();
      const bridge = await t.call(t.owner.token, {
        method: 'PUT',
        url: `/api/v1/resources/${r.id}/bridge`,
        payload: {},
      });
      expect(bridge.statusCode).toBe(200);
      const apiKey = (await api('GET', `/resources/${r.id}/bridge/api-key`)).json().apiKey as string;
      return { id: r.id as number, apiKey };
    };

    /** A fake agent of the machine, subscribed to its update messages, once the hub has it online with its version. */
    const onlineAgent = async (machine: { id: number; apiKey: string }) => {
      const agent = await connectFakeAgent(urls.mqttUrl, machine.id, machine.apiKey);
      agents.push(agent);
      const received: any[] = [];
      agent.client.on('message', (topic, payload) => {
        if (topic === bridgeTopic(machine.id, 'update')) received.push(JSON.parse(payload.toString()));
      });
      await agent.client.subscribeAsync(bridgeTopic(machine.id, 'update'), { qos: 1 });
      await eventually(
        async () =>
          (await api('GET', '/agent-updates'))
            .json()
            .some((u: any) => u.resource === machine.id && u.online && u.agentVersion === 'test'),
        5000,
        'bridge online with its version',
      );
      return { agent, received };
    };

    beforeAll(async () => {
      dir = tempDir('releases-');
      t = await startTestHub(dialect, {
        settings: { agentReleaseDir: dir },
        clock: { now: () => new Date(Date.now() + ahead) },
      });
      urls = await t.listen();
      member = await t.newMemberWithToken('Mo', 'Member');
      space = (await api('GET', '/user/me')).json().space;
    });
    afterAll(async () => {
      for (const a of agents) await a.close();
      await t.close();
    });

    it('is for admins only: members get 403, bridges without a key 401', async () => {
      for (const [method, url] of [
        ['GET', '/agent-release'],
        ['GET', '/agent-updates'],
        ['POST', '/agent-updates'],
        ['POST', '/resources/1/bridge/agent-update'],
      ] as const) {
        expect(
          (await api(method, url, method === 'POST' ? {} : undefined, member.token)).statusCode,
          url,
        ).toBe(403);
      }
      expect((await api('GET', '/bridge/agent-release', undefined, member.token)).statusCode).toBe(401);
    });

    it('without a release the hub says how to make one; offline bridges and unknown ones are refused', async () => {
      const laser = await machineWithBridge('Laser');
      const none = await api('POST', `/resources/${laser.id}/bridge/agent-update`);
      expect(none.statusCode).toBe(409);
      expect(none.json().message).toContain('npm run build');
      writeFileSync(join(dir, 'makerspace-agent-0.2.0.tgz'), bundle);
      const offline = await api('POST', `/resources/${laser.id}/bridge/agent-update`);
      expect(offline.statusCode).toBe(409);
      expect(offline.json().message).toContain('offline');
      const all = await api('POST', '/agent-updates', {});
      expect(all.statusCode).toBe(202);
      expect(all.json()).toEqual({ version: '0.2.0', bridges: [{ resource: laser.id, outcome: 'offline' }] });
      const plain = (
        await api('POST', '/resources', { space, name: 'No bridge', controlType: 'machine' })
      ).json();
      expect((await api('POST', `/resources/${plain.id}/bridge/agent-update`)).statusCode).toBe(404);
      expect((await api('POST', '/agent-updates', { resources: ['x'] })).statusCode).toBe(400);
      // Nothing was recorded for the refused ones.
      const list = (await api('GET', '/agent-updates')).json();
      expect(list.find((u: any) => u.resource === laser.id)).toMatchObject({ online: false, update: null });
    });

    it('sends the signed update to an online bridge, serves it the bundle, and records its progress', async () => {
      const printer = await machineWithBridge('Printer');
      const { agent, received } = await onlineAgent(printer);

      const started = await api('POST', `/resources/${printer.id}/bridge/agent-update`);
      expect(started.statusCode).toBe(202);
      expect(started.json()).toMatchObject({
        resource: printer.id,
        name: 'Printer',
        agentVersion: 'test',
        update: { version: '0.2.0', fromVersion: 'test', step: 'requested', error: null },
      });
      const [update] = await eventually(() => (received.length ? received : null), 5000, 'update message');
      expect(update).toMatchObject({
        id: started.json().update.id,
        version: '0.2.0',
        size: bundle.length,
        sha256: createHash('sha256').update(bundle).digest('hex'),
        url: expect.stringMatching(/\/api\/v1\/bridge\/agent-release$/),
      });

      // One update at a time per bridge.
      const again = await api('POST', `/resources/${printer.id}/bridge/agent-update`);
      expect(again.statusCode).toBe(409);
      expect(again.json().message).toContain('under way');
      expect((await api('POST', '/agent-updates', { resources: [printer.id] })).json().bridges).toEqual([
        { resource: printer.id, outcome: 'updating' },
      ]);

      // The download takes the bridge's own key, and answers the very bytes.
      const download = await t.app.inject({
        method: 'GET',
        url: '/api/v1/bridge/agent-release',
        headers: { authorization: `Bearer ${printer.apiKey}` },
      });
      expect(download.statusCode).toBe(200);
      expect(download.headers['content-type']).toBe('application/gzip');
      expect(download.headers['x-release-version']).toBe('0.2.0');
      expect(download.rawPayload.equals(bundle)).toBe(true);

      const progress = (step: string, extra: object = {}) =>
        agent.client.publishAsync(
          bridgeTopic(printer.id, 'update/progress'),
          JSON.stringify({
            id: update.id,
            version: '0.2.0',
            step,
            runningVersion: 'test',
            at: new Date().toISOString(),
            ...extra,
          }),
          { qos: 1 },
        );
      const stepOf = async () =>
        (await api('GET', '/agent-updates')).json().find((u: any) => u.resource === printer.id).update;
      await progress('downloading');
      await eventually(async () => (await stepOf()).step === 'downloading', 5000);
      await progress('failed', { error: 'the release needs mqtt ^6.0.0' });
      await eventually(async () => (await stepOf()).step === 'failed', 5000);
      expect((await stepOf()).error).toBe('the release needs mqtt ^6.0.0');

      // A report on another update, or one that does not parse, changes nothing.
      await agent.client.publishAsync(
        bridgeTopic(printer.id, 'update/progress'),
        JSON.stringify({
          id: 'another',
          version: '0.2.0',
          step: 'connected',
          runningVersion: '0.2.0',
          at: new Date().toISOString(),
        }),
        { qos: 1 },
      );
      await agent.client.publishAsync(
        bridgeTopic(printer.id, 'update/progress'),
        '{"id": 1, "step": "connected"}',
        {
          qos: 1,
        },
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await stepOf()).step).toBe('failed');
      // Ended: the admin may try again, which is a new update.
      const retry = await api('POST', `/resources/${printer.id}/bridge/agent-update`);
      expect(retry.statusCode).toBe(202);
      expect(retry.json().update.id).not.toBe(update.id);
    });

    it('an update whose agent falls silent mid-way shows as given up, and another may start', async () => {
      const laser = await machineWithBridge('Laser');
      const { agent, received } = await onlineAgent(laser);
      expect((await api('POST', `/resources/${laser.id}/bridge/agent-update`)).statusCode).toBe(202);
      const [update] = await eventually(() => (received.length ? received : null), 5000, 'update message');
      await agent.client.publishAsync(
        bridgeTopic(laser.id, 'update/progress'),
        JSON.stringify({
          id: update.id,
          version: '0.2.0',
          step: 'downloading',
          runningVersion: 'test',
          at: new Date().toISOString(),
        }),
        { qos: 1 },
      );
      const stepOf = async () =>
        (await api('GET', '/agent-updates')).json().find((u: any) => u.resource === laser.id).update;
      await eventually(async () => (await stepOf()).step === 'downloading', 5000);
      // Nine minutes without a word: still under way.
      ahead = 9 * 60_000;
      expect((await stepOf()).step).toBe('downloading');
      expect((await api('POST', `/resources/${laser.id}/bridge/agent-update`)).statusCode).toBe(409);
      // Ten: given up, with the step it stopped at, and the admin may start another.
      ahead = 10 * 60_000;
      const lost = await stepOf();
      expect(lost).toMatchObject({ id: update.id, step: 'failed' });
      expect(lost.error).toMatch(/No word from the agent for 10 minutes after "downloading"/);
      const retry = await api('POST', `/resources/${laser.id}/bridge/agent-update`);
      expect(retry.statusCode).toBe(202);
      expect(retry.json().update).toMatchObject({ step: 'requested', error: null });
      ahead = 0;
    });

    it('orders versions as semver does for x.y.z and pre-releases', () => {
      expect(compareVersions('0.10.0', '0.9.9')).toBeGreaterThan(0);
      expect(compareVersions('1.0.0', '1.0.0-rc.1')).toBeGreaterThan(0);
      expect(compareVersions('1.0.0-rc.1', '1.0.0-rc.2')).toBeLessThan(0);
      expect(compareVersions('1.2.3', '1.2.3')).toBe(0);
    });
  },
);
