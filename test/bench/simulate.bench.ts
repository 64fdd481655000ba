import { createStorage } from '../../hub/src/db/database.js';
import { fmt, startBenchHub } from './harness.js';

/**
 * Access simulations (`POST /access-simulations`) on SQLite: BENCH_SIM_MEMBERS members (1,000)
 * who all hold one package (each from the day they joined), BENCH_SIM_RESOURCES resources (50; a fifth of them need a
 * training that half the members have), a week of hourly slots. Two proposed changes that
 * reach every member and resource: the package's time table, and the space's opening hours.
 * One member's package, a package's time table asked about for 30 members and 10 resources, and
 * both changes for everyone (16.8 million answers each). Each answer's wall time as a client
 * sees it (median of three), the answers (member x resource x slot, before and after) per second
 * and the policy decisions they took (one per class of members, resources and slots).
 */
export async function simulateBench(): Promise<string[]> {
  const memberCount = Number(process.env.BENCH_SIM_MEMBERS ?? 1000);
  const resourceCount = Number(process.env.BENCH_SIM_RESOURCES ?? 50);
  const hub = await startBenchHub();
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await hub.api(method, path, body);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const me = await ok('GET', '/user/me');
  const space = await ok('GET', `/spaces/${me.space}`);
  await ok('PUT', `/spaces/${me.space}`, { lockVersion: space.lockVersion, timezone: 'Europe/Vienna' });
  const weekdays = [1, 2, 3, 4, 5, 6];
  await ok(
    'PUT',
    `/spaces/${me.space}/opening-hours`,
    weekdays.map((dayOfWeek) => ({ dayOfWeek, fromTime: '08:00', untilTime: '22:00' })),
  );
  const trained: number[] = [];
  for (let i = 0; i < resourceCount; i++) {
    const needsTraining = i % 5 === 0;
    const r = await ok('POST', '/resources', {
      space: me.space,
      name: `Machine ${i + 1}`,
      controlType: i === 0 ? 'door' : 'machine',
      requiresTraining: needsTraining,
    });
    if (needsTraining) trained.push(r.id);
  }
  const course = await ok('POST', '/training-courses', { title: 'Workshop safety', resources: trained });
  const pkg = await ok('POST', '/packages', { name: 'Member' });
  const permission = await ok('POST', `/packages/${pkg.id}/permissions`, {
    type: 'everything',
    timeType: 'custom',
    times: weekdays.map((dayOfWeek) => ({ dayOfWeek, fromTime: '08:00', untilTime: '22:00' })),
  });

  // Members, their packages and trainings straight into the database: faster than 2,500 POSTs.
  // Each joined (and trained) on a day of their own in the three years before, as in a space.
  const joinedOn = (n: number) =>
    new Date(Date.UTC(2023, 0, 1) + ((n * 7) % 1000) * 86_400_000).toISOString().slice(0, 10);
  const storage = createStorage({ url: `${hub.dataDir}/hub.sqlite` });
  const at = new Date().toISOString();
  await storage.db.transaction().execute(async (trx) => {
    for (let i = 0; i < memberCount; i += 500) {
      const n = Math.min(500, memberCount - i);
      const members = await trx
        .insertInto('members')
        .values(
          Array.from({ length: n }, (_, j) => ({
            account: me.account,
            space: me.space,
            memberNumber: String(10_000 + i + j),
            firstName: `First${i + j}`,
            lastName: `Last${(i + j) % 97}`,
            emailAddress: `member${i + j}@bench.example`,
            emailKey: `member${i + j}@bench.example`,
            createdAt: at,
            updatedAt: at,
          })) as never,
        )
        .returning('id')
        .execute();
      await trx
        .insertInto('member_packages')
        .values(
          members.map((m) => ({
            account: me.account,
            member: m.id,
            package: pkg.id,
            fromDate: joinedOn(m.id),
            untilDate: null,
            notes: null,
            createdAt: at,
            updatedAt: at,
          })) as never,
        )
        .execute();
      await trx
        .insertInto('member_trainings')
        .values(
          members
            .filter((_, j) => j % 2 === 0)
            .map((m) => ({
              account: me.account,
              member: m.id,
              trainingCourse: course.id,
              date: joinedOn(m.id + 30),
              fromDate: joinedOn(m.id + 30),
              untilDate: null,
              notes: null,
              createdAt: at,
              updatedAt: at,
            })) as never,
        )
        .execute();
    }
  });
  await storage.close();

  const measure = async (label: string, request: unknown) => {
    const times: number[] = [];
    let answer: any;
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const res = await hub.api('POST', '/access-simulations', request);
      times.push(performance.now() - started);
      if (res.status === 422 && res.body.data?.tooLarge) {
        const { decisions, maxDecisions } = res.body.data.tooLarge;
        return `| simulate ${label}: refused, ${decisions.toLocaleString('en')} decisions > ${maxDecisions.toLocaleString('en')} | - | 422 in ${fmt(times[0], 0)} ms | 0 |`;
      }
      if (res.status !== 200) throw new Error(`simulate ${label}: ${res.status} ${JSON.stringify(res.body)}`);
      answer = res.body;
    }
    times.sort((a, b) => a - b);
    // What went over the wire: fetch asks for Brotli or gzip and decodes, so read the headers.
    const wire = await fetch(`${hub.base}/access-simulations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hub.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(request),
    });
    await wire.arrayBuffer();
    const encoding = wire.headers.get('content-encoding');
    const sent = encoding
      ? `, sent as ${fmt(Number(wire.headers.get('content-length')) / 1e6, 2)} MB of ${encoding}`
      : '';
    const { members, resources, slots, decisions } = answer.evaluated;
    // Answers: every member x resource x slot, before and after; decisions: the policy's runs (one per class).
    const answers = members * resources * slots * 2;
    const perSecond = answers / (times[1] / 1000);
    return `| simulate ${label}: ${members.toLocaleString('en')} member(s) x ${resources} resources x ${slots} hourly slots, twice (${decisions.toLocaleString('en')} policy decisions; ${answer.changes.length.toLocaleString('en')} member-resource pairs change, ${fmt(JSON.stringify(answer).length / 1e6, 1)} MB of JSON${sent}) | ${fmt(perSecond / 1e6, 2)} M answers/s | ${fmt(times[1] / 1000, 2)} s (median of 3; ${fmt(times[0] / 1000, 2)}-${fmt(times[2] / 1000, 2)}) | 0 |`;
  };
  const someone = (await ok('GET', '/members?limit=1&offset=1'))[0];
  const held = (await ok('GET', `/members/${someone.id}/packages`))[0];
  const lines = [
    await measure('one member’s package', {
      method: 'PUT',
      path: `/members/${someone.id}/packages/${held.id}`,
      body: {
        lockVersion: held.lockVersion,
        untilDate: new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10),
      },
    }),
    await measure('a package time table, 30 members and 10 resources asked about', {
      method: 'PUT',
      path: `/packages/${pkg.id}/permissions/${permission.id}`,
      body: {
        lockVersion: permission.lockVersion,
        times: [1, 2, 3, 4, 5].map((dayOfWeek) => ({ dayOfWeek, fromTime: '08:00', untilTime: '20:00' })),
      },
      members: (await ok('GET', '/members?limit=30')).map((m: { id: number }) => m.id),
      resources: trained.slice(0, 5).concat(trained.map((id) => id + 1).slice(0, 5)),
    }),
    await measure('a package time table, every member and resource', {
      method: 'PUT',
      path: `/packages/${pkg.id}/permissions/${permission.id}`,
      body: {
        lockVersion: permission.lockVersion,
        times: [1, 2, 3, 4, 5].map((dayOfWeek) => ({ dayOfWeek, fromTime: '08:00', untilTime: '20:00' })),
      },
    }),
    await measure('the opening hours, every member and resource', {
      method: 'PUT',
      path: `/spaces/${me.space}/opening-hours`,
      body: [1, 2, 3, 4, 5].map((dayOfWeek) => ({ dayOfWeek, fromTime: '08:00', untilTime: '22:00' })),
    }),
  ];
  await hub.proc.stop();
  return lines;
}
