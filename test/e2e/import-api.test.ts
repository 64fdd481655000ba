import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HubProcess, startHubProcess } from '../support/e2e.js';
import { seedMovingInSource } from '../support/import-seed.js';
import { hubCli, runProcess, startProcess, stopAll, tempDir } from '../support/processes.js';

/**
 * Moving in from another server with the commercial interface: a second hub, started here with
 * 1,000 members, their cards, trainings and packages, 20 resources and bookings ahead, is read
 * by `makerspace-hub import api` into a fresh hub's database, through its REST API only.
 */

const ownerEmail = 'owner@fablab.example';
let source: HubProcess;
let seeded: Record<string, number>;

beforeAll(async () => {
  const dataDir = tempDir('import-source-');
  const { token, counts } = await seedMovingInSource(dataDir, { members: 1000, ownerEmail });
  seeded = counts;
  source = await startHubProcess({ dataDir, token });
}, 180_000);

afterAll(stopAll);

/** A fresh hub's data directory with its account (init), as an operator starts. */
async function freshTarget(): Promise<{ env: NodeJS.ProcessEnv; token: string; dataDir: string }> {
  const dataDir = tempDir('import-target-');
  const env = { HUB_DATA_DIR: dataDir, LOG_LEVEL: 'info' };
  const init = await runProcess([hubCli, 'init', '--account', 'Fablab', '--email', ownerEmail], env);
  expect(init.code).toBe(0);
  return { env, token: JSON.parse(init.stdout).token, dataDir };
}

const importArgs = (url: string) => [hubCli, 'import', 'api', '--url', url, '--token', source.token];

/** The line of the table for a kind: [read, created, updated, unchanged, skipped]. */
function row(table: string, kind: string): number[] {
  const line = table.split('\n').find((l) => l.startsWith(`${kind} `));
  if (!line) throw new Error(`no row ${kind} in\n${table}`);
  return line.trim().split(/\s+/).slice(1).map(Number);
}

async function all(hub: HubProcess, path: string): Promise<any[]> {
  const out: any[] = [];
  for (let offset = 0; ; offset += 1000) {
    const sep = path.includes('?') ? '&' : '?';
    const { status, body } = await hub.api('GET', `${path}${sep}limit=1000&offset=${offset}`);
    expect(status).toBe(200);
    out.push(...body);
    if (body.length < 1000) return out;
  }
}

/**
 * What a member of staff would check after moving in, independent of ids: every member with
 * their fields, card, trainings and packages; resources with prices; courses, packages with
 * permissions and credits; bookings ahead; opening hours and holidays.
 */
async function snapshot(hub: HubProcess) {
  const spaceId = (await all(hub, '/spaces'))[0].id;
  const types = new Map((await all(hub, '/resource-types')).map((t) => [t.id, t.name]));
  const resources = await all(hub, '/resources');
  const resourceName = new Map(resources.map((r) => [r.id, r.name]));
  const courses = await all(hub, '/training-courses');
  const courseTitle = new Map(courses.map((c) => [c.id, c.title]));
  const packages = await all(hub, '/packages');
  const packageName = new Map(packages.map((p) => [p.id, p.name]));
  const members = await all(hub, '/members?embed=key&embed=trainings&embed=memberPackages');
  const memberEmail = new Map(members.map((m) => [m.id, m.emailAddress]));
  const strip = ({
    id,
    account,
    space,
    createdAt,
    updatedAt,
    updatedBy,
    lockVersion,
    _embedded,
    ...rest
  }: any) => rest;
  const packageDetails = [];
  for (const p of packages) {
    const permissions = (await all(hub, `/packages/${p.id}/permissions`)).map((x) => ({
      ...strip(x),
      package: undefined,
      resource: resourceName.get(x.resource) ?? null,
      resourceType: types.get(x.resourceType) ?? null,
    }));
    const credits = (await all(hub, `/packages/${p.id}/credits`)).map((x) => ({
      ...strip(x),
      package: undefined,
      resources: x.resources.map((r: any) => ({ ...r, resourceType: types.get(r.resourceType) ?? null })),
    }));
    packageDetails.push({ ...strip(p), permissions, credits });
  }
  return {
    openingHours: (await hub.api('GET', `/spaces/${spaceId}/opening-hours`)).body,
    holidays: (await all(hub, `/spaces/${spaceId}/holidays`)).map((h) => ({ ...strip(h), space: undefined })),
    resources: resources
      .map((r) => {
        const { switchOnCode, bridge, lastUsed, state, offline, ...rest } = strip(r);
        return { ...rest, type: types.get(r.type) };
      })
      .sort((a, b) => a.name.localeCompare(b.name)),
    courses: courses
      .map((c) => ({ ...strip(c), resources: c.resources.map((r: number) => resourceName.get(r)).sort() }))
      .sort((a, b) => a.title.localeCompare(b.title)),
    packages: packageDetails.sort((a, b) => a.name.localeCompare(b.name)),
    members: members
      .map((m) => ({
        ...strip(m),
        key: m._embedded.key
          ? `${m._embedded.key.type}:${m._embedded.key.token}:${m._embedded.key.state}`
          : null,
        trainings: m._embedded.trainings
          .map((t: any) => `${courseTitle.get(t.trainingCourse)} ${t.date} ${t.fromDate} ${t.untilDate}`)
          .sort(),
        packages: m._embedded.memberPackages
          .map((p: any) => `${packageName.get(p.package)} ${p.fromDate} ${p.untilDate}`)
          .sort(),
      }))
      .sort((a, b) => String(a.emailAddress).localeCompare(String(b.emailAddress))),
    bookings: (await all(hub, '/bookings'))
      .map(
        (b) =>
          `${resourceName.get(b.resource)} ${memberEmail.get(b.member)} ${b.fromDateTime} ${b.untilDateTime} ${b.state}`,
      )
      .sort(),
  };
}

/** Checks each part of the snapshot against the source's (a failure names the part). */
async function sameAsSource(hub: HubProcess) {
  const [want, got] = await Promise.all([snapshot(source), snapshot(hub)]);
  for (const part of Object.keys(want) as (keyof typeof want)[]) {
    if (Array.isArray(want[part]) && Array.isArray(got[part])) {
      for (const [i, entry] of (want[part] as unknown[]).entries())
        expect((got[part] as unknown[])[i], `${part} ${i}`).toEqual(entry);
    }
    expect(got[part], part).toEqual(want[part]);
  }
  return got;
}

/** A proxy to the source that answers every `every`-th request 429 with Retry-After: 1. */
async function rateLimitingProxy(target: string, every: number) {
  let n = 0;
  let refused = 0;
  const server: Server = createServer(async (req, res) => {
    n++;
    if (n % every === 0) {
      refused++;
      res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' });
      res.end('{"error":"Too Many Requests"}');
      return;
    }
    const upstream = await fetch(`${target}${req.url}`, {
      headers: { authorization: req.headers.authorization ?? '' },
    });
    const link = upstream.headers.get('link');
    const headers: Record<string, string> = {
      'content-type': upstream.headers.get('content-type') ?? 'application/json',
    };
    // The next page must be asked through the proxy too.
    if (link)
      headers.link = link.replaceAll(target, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    res.writeHead(upstream.status, headers);
    res.end(Buffer.from(await upstream.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`,
    refused: () => refused,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('makerspace-hub import api', () => {
  it('brings in everything through a rate-limited API, and a second run changes nothing', async () => {
    const target = await freshTarget();
    const proxy = await rateLimitingProxy(`http://127.0.0.1:${source.httpPort}`, 5);
    try {
      // The same URL each run: the id map is kept per source.
      const first = await runProcess([...importArgs(proxy.url), '--page-size', '100'], target.env);
      expect(first.code, first.stderr).toBe(0);
      expect(proxy.refused()).toBeGreaterThan(2);
      expect(first.stdout).toMatch(new RegExp(`${proxy.refused()} waits for rate limits`));
      for (const kind of ['member', 'memberKey', 'memberTraining', 'memberPackage', 'resource', 'booking']) {
        const [read, created, updated, unchanged, skipped] = row(first.stdout, kind);
        // The owner exists on both sides (same e-mail address): taken over, not duplicated.
        const expected = kind === 'member' ? seeded.member + 1 : seeded[kind];
        expect([kind, read, skipped]).toEqual([kind, expected, 0]);
        expect(created + updated + unchanged).toBe(expected);
      }
      expect(row(first.stdout, 'member').slice(1, 3)).toEqual([seeded.member, 1]);
    } catch (err) {
      await proxy.close();
      throw err;
    }

    const second = await runProcess(importArgs(proxy.url), target.env);
    await proxy.close();
    expect(second.code, second.stderr).toBe(0);
    for (const line of second.stdout.split('\n').slice(2, 16)) {
      const [kind, read, created, updated, , skipped] = line.trim().split(/\s+/);
      expect([kind, created, updated, skipped]).toEqual([kind, '0', '0', '0']);
      expect(Number(read)).toBeGreaterThan(0);
    }

    const hub = await startHubProcess({ dataDir: target.dataDir, token: target.token });
    const got = await sameAsSource(hub);
    expect(got.members).toHaveLength(seeded.member + 1);
    expect(got.bookings).toHaveLength(seeded.booking);
    // New switch-on codes, no bridges: those are paired again.
    const [a] = await all(source, '/resources');
    const [b] = await all(hub, '/resources');
    expect(b.switchOnCode).not.toEqual(a.switchOnCode);
    expect((await hub.api('GET', '/charges')).body).toEqual([]);
    await hub.proc.stop('SIGTERM');
  }, 240_000);

  it('a run killed halfway and started again ends with the same result', async () => {
    const target = await freshTarget();
    const killed = startProcess(importArgs(source.base), target.env);
    await killed.waitFor(/"kind":"member","done":400/, 60_000);
    await killed.stop('SIGKILL');

    const again = await runProcess(importArgs(source.base), target.env);
    expect(again.code, again.stderr).toBe(0);
    const [read, created, updated, unchanged, skipped] = row(again.stdout, 'member');
    expect(read).toBe(seeded.member + 1);
    expect(skipped).toBe(0);
    // What the killed run committed is not written again.
    expect(unchanged).toBeGreaterThanOrEqual(300);
    expect(created + updated + unchanged).toBe(seeded.member + 1);

    const hub = await startHubProcess({ dataDir: target.dataDir, token: target.token });
    await sameAsSource(hub);
    await hub.proc.stop('SIGTERM');
  }, 240_000);

  it('--dry-run prints the same table and writes nothing', async () => {
    const target = await freshTarget();
    const dry = await runProcess([...importArgs(source.base), '--dry-run'], target.env);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/^Dry run \(nothing written\)/);
    expect(row(dry.stdout, 'member').slice(0, 3)).toEqual([seeded.member + 1, seeded.member, 1]);
    expect(row(dry.stdout, 'booking').slice(0, 2)).toEqual([seeded.booking, seeded.booking]);
    const hub = await startHubProcess({ dataDir: target.dataDir, token: target.token });
    expect((await all(hub, '/members')).length).toBe(1);
    expect(await all(hub, '/resources')).toEqual([]);
    await hub.proc.stop('SIGTERM');
  }, 120_000);

  it('a wrong token or an unreachable server says so in one line and writes nothing', async () => {
    const target = await freshTarget();
    const wrong = await runProcess(
      [hubCli, 'import', 'api', '--url', source.base, '--token', 'not-a-token'],
      target.env,
    );
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/the token is not accepted/);
    // A port nobody listens on.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const away = await runProcess(
      [hubCli, 'import', 'api', '--url', `http://127.0.0.1:${port}`, '--token', 'x'],
      target.env,
    );
    expect(away.code).toBe(2);
    expect(away.stderr).toContain(
      `127.0.0.1:${port}/api/v1/spaces?limit=200: cannot be reached (ECONNREFUSED)`,
    );
    // Nothing was written: the target still has only its owner.
    const dry = await runProcess([...importArgs(source.base), '--dry-run'], target.env);
    expect(row(dry.stdout, 'member').slice(0, 3)).toEqual([seeded.member + 1, seeded.member, 1]);
    const missing = await runProcess([hubCli, 'import', 'api', '--url', source.base], target.env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--url and --token are required/);
  }, 60_000);
});
