import { afterAll, beforeAll, expect, it } from 'vitest';
import { ApiImport, type ImportSummary, summaryTable } from '../../hub/src/import/api-import.js';
import { ApiSource, nextLink, retryAfterMs, sourceBase } from '../../hub/src/import/api-source.js';
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
