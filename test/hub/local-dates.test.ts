import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/dialects.js';
import { startTestHub, type TestHub } from '../support/hub.js';

/**
 * The once-a-minute watch for a new local date (hub/src/resources/bridge-config.ts): bridge
 * configs are republished when a space passes midnight, and an account that had no bridge while
 * midnights passed gets its configs republished once its first bridge is there.
 */
describeEachDialect('local dates and bridge configs', (dialect) => {
  let t: TestHub;
  // The system clock, moved forward by `shift` ms when a test needs another day.
  let shift = 0;
  beforeAll(async () => {
    t = await startTestHub(dialect, { clock: { now: () => new Date(Date.now() + shift) } });
  });
  afterAll(async () => {
    await t?.close();
  });

  const configVersion = async (resource: number) =>
    (
      await t.hub.ctx.db
        .selectFrom('bridges')
        .select('configVersion')
        .where('resource', '=', resource)
        .executeTakeFirstOrThrow()
    ).configVersion;

  it('a bridge that came while nobody watched the date gets a new config at the next check, then at midnight', async () => {
    // No bridge yet: a day passes unwatched.
    await t.hub.localDates.check();
    shift = 86_400_000;
    await t.hub.localDates.check();

    const door = await t.call(t.owner.token, {
      method: 'POST',
      url: '/api/v1/resources',
      payload: { space: t.owner.spaceId, name: 'Door', controlType: 'door' },
    });
    const id = door.json().id as number;
    expect(
      (await t.call(t.owner.token, { method: 'PUT', url: `/api/v1/resources/${id}/bridge`, payload: {} }))
        .statusCode,
    ).toBe(200);
    const paired = await configVersion(id);
    await t.hub.localDates.check();
    const first = await configVersion(id);
    expect(first).toBeGreaterThan(paired);

    // Watched now: the same day changes nothing, the next midnight republishes.
    await t.hub.localDates.check();
    expect(await configVersion(id)).toBe(first);
    shift = 2 * 86_400_000;
    await t.hub.localDates.check();
    expect(await configVersion(id)).toBeGreaterThan(first);
  });
});
