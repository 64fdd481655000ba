import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';

/**
 * A billing job (package billing, the invoice run) over many members runs for a while: the hub
 * keeps answering other requests meanwhile (on SQLite every query runs synchronously, so the
 * job lets them in between two members).
 */
describeEachDialect('the billing run lets other requests through', (dialect) => {
  let t: TestHub;
  const api = (method: string, url: string, payload?: unknown) =>
    t.call(t.owner.token, {
      method: method as 'GET',
      url: `/api/v1${url}`,
      ...(payload === undefined ? {} : { payload: payload as never }),
    });

  beforeAll(async () => {
    t = await startTestHub(dialect);
    await t.hub.jobs.stop();
    const pkg = (
      await api('POST', '/packages', { name: 'Monthly', recurringFee: '30.00', recurringFeePeriod: 'month' })
    ).json();
    const at = new Date().toISOString();
    const db = t.hub.ctx.db;
    for (let i = 0; i < 300; i += 100) {
      const members = await db
        .insertInto('members')
        .values(
          Array.from({ length: 100 }, (_, j) => ({
            account: t.owner.accountId,
            space: t.owner.spaceId,
            firstName: `Member${i + j}`,
            lastName: 'Run',
            createdAt: at,
            updatedAt: at,
          })) as never,
        )
        .returning('id')
        .execute();
      await db
        .insertInto('member_packages')
        .values(
          members.map((m) => ({
            account: t.owner.accountId,
            member: m.id,
            package: pkg.id,
            fromDate: '2026-01-01',
            untilDate: null,
            notes: null,
            createdAt: at,
            updatedAt: at,
          })) as never,
        )
        .execute();
    }
  }, 60_000);
  afterAll(async () => t?.close());

  /** Runs the job of this type and a request at the same time: did the request answer first? */
  async function requestDuring(type: 'packageBilling' | 'invoiceRun') {
    const queued = await api('POST', '/jobs', { type });
    expect(queued.statusCode).toBe(202);
    let jobDone = false;
    const run = t.hub.jobs.runDue().then(() => {
      jobDone = true;
    });
    // Let the job begin, then ask something else.
    await new Promise((resolve) => setImmediate(resolve));
    const answer = await api('GET', '/user/me');
    const answeredWhileRunning = !jobDone;
    await run;
    expect(answer.statusCode).toBe(200);
    const job = (await api('GET', `/jobs/${queued.json().id}`)).json();
    expect(job).toMatchObject({ state: 'succeeded', progress: 100 });
    return { answeredWhileRunning, job };
  }

  it('answers a request during package billing, which bills every member package', async () => {
    const { answeredWhileRunning, job } = await requestDuring('packageBilling');
    expect(job.result).toMatchObject({ memberPackages: 300 });
    expect(answeredWhileRunning).toBe(true);
  });

  it('answers a request during the invoice run, which invoices every member', async () => {
    const { answeredWhileRunning, job } = await requestDuring('invoiceRun');
    expect(job.result.invoices).toHaveLength(300);
    expect(answeredWhileRunning).toBe(true);
  });
});
