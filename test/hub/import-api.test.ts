import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ApiImport, type ImportSummary, summaryTable } from '../../hub/src/import/api-import.js';
import { ApiSource, nextLink, retryAfterMs, sourceBase } from '../../hub/src/import/api-source.js';
import { bodyOf, Skip } from '../../hub/src/import/import-run.js';
import { MemberCreate } from '@makerspace/shared';
import { importedIdOf } from '../../hub/src/import/import-ids.repository.js';
import type { Caller } from '../../hub/src/kernel/caller.js';
import { describeEachDialect } from '../support/dialects.js';
import { type HubProcess, startHubProcess } from '../support/e2e.js';
import { startTestHub, type TestHub } from '../support/hub.js';
import { seedMovingInSource } from '../support/import-seed.js';
import { stopAll, tempDir } from '../support/processes.js';

/**
 * The API import into a hub's own context, on each dialect (the CLI's end-to-end test,
 * test/e2e/import-api.test.ts, runs the 1,000-member set on SQLite): counts, a second run that
 * writes nothing, and a third that writes only what changed at the source.
 */

let source: HubProcess;
let seeded: Record<string, number>;

beforeAll(async () => {
  const dataDir = tempDir('import-source-');
  const { token, counts } = await seedMovingInSource(dataDir, { members: 40 });
  seeded = counts;
  source = await startHubProcess({ dataDir, token });
}, 120_000);
afterAll(stopAll);

it('reads the pieces of the interface it follows', () => {
  expect(sourceBase('https://fabman.io')).toBe('https://fabman.io/api/v1');
  expect(sourceBase('https://fabman.io/api/v1/')).toBe('https://fabman.io/api/v1');
  expect(() => sourceBase('ftp://x')).toThrow(/http/);
  expect(nextLink('<https://h/api/v1/members?offset=50>; rel="next", <https://h/x>; rel="prev"')).toBe(
    'https://h/api/v1/members?offset=50',
  );
  expect(nextLink('<https://h/x>; rel="prev"')).toBeUndefined();
  expect(retryAfterMs('3', 0)).toBe(3000);
  expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
  expect(retryAfterMs(null, 0)).toBe(1000);
});

it('leaves out an optional field this hub refuses, and skips a record without a required one', () => {
  const left: string[] = [];
  const body = bodyOf(
    MemberCreate,
    { id: 7, firstName: 'Ada', phone: 'x'.repeat(80), countryCode: 'Austria', city: 'Wien', lockVersion: 3 },
    { space: 1 },
    [],
    (field, message) => left.push(`${field}: ${message}`),
  );
  expect(body).toEqual({ firstName: 'Ada', city: 'Wien', space: 1 });
  expect(left).toHaveLength(2);
  expect(left.join()).toMatch(/phone: .*countryCode: /);
  expect(() => bodyOf(MemberCreate, { lastName: 'Nameless' }, { space: 1 }, [], () => {})).toThrow(Skip);
  // A translated reference that the hub refuses is never left out: the record is skipped.
  expect(() => bodyOf(MemberCreate, { firstName: 'A' }, { space: 0 }, [], () => {})).toThrow(/invalid space/);
});

describeEachDialect('import api into a running hub', (dialect) => {
  let t: TestHub;
  let caller: Caller;
  beforeAll(async () => {
    t = await startTestHub(dialect);
    caller = {
      memberId: t.owner.memberId,
      accountId: t.owner.accountId,
      spaceId: t.owner.spaceId,
      privileges: 'owner',
      superuser: false,
      via: 'apiKey',
      apiKeyId: null,
      sessionId: null,
    };
  });
  afterAll(() => t?.close());

  const run = (pageSize = 15) =>
    new ApiImport(
      new ApiSource({ url: source.base, token: source.token, pageSize }),
      { ctx: t.hub.ctx, caller },
      {
        dryRun: false,
      },
    ).run();
  const count = (s: ImportSummary, kind: string) => {
    const k = s.kinds.find((x) => x.kind === kind);
    return k
      ? [k.read, k.created, k.updated, k.unchanged, [...k.skipped.values()].reduce((n, x) => n + x.count, 0)]
      : [];
  };
  const total = async (path: string) =>
    Number((await t.call(t.owner.token, { method: 'GET', url: `/api/v1${path}` })).headers['x-total-count']);

  it('brings everything in, then writes nothing, then only what changed', async () => {
    const first = await run();
    expect(count(first, 'member')).toEqual([seeded.member + 1, seeded.member + 1, 0, 0, 0]);
    for (const kind of [
      'resource',
      'memberKey',
      'memberTraining',
      'memberPackage',
      'booking',
      'packageCredit',
    ])
      expect([kind, ...count(first, kind)]).toEqual([kind, seeded[kind], seeded[kind], 0, 0, 0]);
    expect(await total('/members')).toBe(seeded.member + 2);
    expect(await total('/bookings')).toBe(seeded.booking);
    expect(await total('/resources')).toBe(seeded.resource);
    // The space's time zone came along (its opening hours are wall times in it).
    const space = (
      await t.call(t.owner.token, { method: 'GET', url: `/api/v1/spaces/${t.owner.spaceId}` })
    ).json();
    expect(space.timezone).toBe('Europe/Berlin');
    // Nothing billed: the other server billed setup fees, periods and bookings.
    expect(await total('/charges')).toBe(0);

    const second = await run(1000);
    for (const k of second.kinds)
      expect([k.kind, k.created, k.updated, k.skipped.size]).toEqual([k.kind, 0, 0, 0]);

    const members = (await source.api('GET', '/members?limit=5&orderBy=id')).body as {
      id: number;
      lockVersion: number;
    }[];
    expect(
      (
        await source.api('PUT', `/members/${members[3].id}`, {
          lockVersion: members[3].lockVersion,
          city: `Linz ${dialect}`,
        })
      ).status,
    ).toBe(200);
    // The source is shared by both dialects' runs: a change of its own for each.
    const fee = dialect === 'sqlite' ? '98.00' : '99.00';
    const [pkg] = (await source.api('GET', '/packages')).body;
    expect(
      (
        await source.api('PUT', `/packages/${pkg.id}`, {
          lockVersion: pkg.lockVersion,
          recurringFee: fee,
        })
      ).status,
    ).toBe(200);
    const third = await run();
    expect(count(third, 'member').slice(1, 3)).toEqual([0, 1]);
    expect(count(third, 'package').slice(1, 3)).toEqual([0, 1]);
    expect(count(third, 'resource').slice(1, 3)).toEqual([0, 0]);
    expect(summaryTable(third)).toMatch(/^member\s+41\s+0\s+1\s+40\s+0$/m);

    const here = await importedIdOf(t.hub.ctx.db, caller.accountId, source.base, 'member', members[3].id);
    const member = (await t.call(t.owner.token, { method: 'GET', url: `/api/v1/members/${here}` })).json();
    expect(member.city).toBe(`Linz ${dialect}`);
    const pkgHere = await importedIdOf(t.hub.ctx.db, caller.accountId, source.base, 'package', pkg.id);
    expect(
      (await t.call(t.owner.token, { method: 'GET', url: `/api/v1/packages/${pkgHere}` })).json()
        .recurringFee,
    ).toBe(fee);
    expect(
      await importedIdOf(t.hub.ctx.db, caller.accountId, source.base, 'member', 999_999),
    ).toBeUndefined();
  }, 120_000);
});

/**
 * A server of the commercial interface as the hub does not write it: pages by `offset` without
 * a Link header, records with fields this hub refuses, one e-mail address twice.
 */
it('a server without Link headers, with odd records: paged by offset, odd fields left out, duplicates skipped', async () => {
  const members = [
    { id: 11, firstName: 'Ada', lastName: 'Lovelace', emailAddress: 'ada@odd.example', state: 'active' },
    {
      id: 12,
      firstName: 'Bo',
      emailAddress: 'bo@odd.example',
      countryCode: 'Austria',
      phone: 'x'.repeat(80),
    },
    { id: 13, firstName: 'Ada', lastName: 'Again', emailAddress: 'ADA@odd.example' },
    { id: 14, lastName: 'Nameless', emailAddress: 'nameless@odd.example' },
    { id: 15, firstName: 'Cy', state: 'pending' },
  ];
  const asked: string[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    asked.push(`${url.pathname}?${url.searchParams}`);
    const list = (rows: unknown[]) => {
      const limit = Number(url.searchParams.get('limit') ?? 50);
      const offset = Number(url.searchParams.get('offset') ?? 0);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(rows.slice(offset, offset + limit)));
    };
    if (req.headers.authorization !== 'Bearer odd-token') {
      res.writeHead(401);
      res.end();
    } else if (url.pathname === '/api/v1/spaces') list([{ id: 3, name: 'Odd', timezone: 'Europe/Zurich' }]);
    else if (url.pathname === '/api/v1/spaces/3/opening-hours') list([]);
    else if (url.pathname === '/api/v1/members') list(members);
    else list([]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const t = await startTestHub('sqlite');
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const summary = await new ApiImport(
      new ApiSource({ url, token: 'odd-token', pageSize: 2 }),
      {
        ctx: t.hub.ctx,
        caller: {
          memberId: t.owner.memberId,
          accountId: t.owner.accountId,
          spaceId: t.owner.spaceId,
          privileges: 'owner',
          superuser: false,
          via: 'apiKey',
          apiKeyId: null,
          sessionId: null,
        },
      },
      { dryRun: false },
    ).run();
    // Three pages of two, asked by offset.
    expect(asked.filter((a) => a.startsWith('/api/v1/members'))).toEqual([
      expect.stringMatching(/limit=2$/),
      expect.stringMatching(/limit=2&offset=2$/),
      expect.stringMatching(/limit=2&offset=4$/),
    ]);
    const table = summaryTable(summary);
    expect(table).toMatch(/^member\s+5\s+2\s+0\s+0\s+3$/m);
    expect(table).toContain(
      'member: 1 skipped: another record here has the same e-mail address, card or name (e.g. id 13)',
    );
    expect(table).toContain('member: 1 skipped: invalid firstName');
    expect(table).toContain('member: 1 skipped: a sign-up waiting for approval (e.g. id 15)');
    expect(table).toMatch(/member: 1 without countryCode: .* \(e\.g\. id 12\)/);
    expect(table).toMatch(/member: 1 without phone: .* \(e\.g\. id 12\)/);
    const bo = (
      await t.call(t.owner.token, { method: 'GET', url: '/api/v1/members?q=bo@odd.example' })
    ).json();
    expect(bo).toMatchObject([{ firstName: 'Bo', countryCode: null, phone: null }]);
  } finally {
    await t.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
