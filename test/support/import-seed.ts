import { join } from 'node:path';
import { createLogger } from '@makerspace/shared';
import { createAccountWithOwner } from '../../hub/src/identity/bootstrap.js';
import { openHub } from '../../hub/src/hub.js';
import { testSettings } from './hub.js';

/**
 * A realistic space to move in from, written into a hub's data directory through its REST API
 * (in-process, so 5,000 records take seconds): opening hours and holidays, 3 resource types,
 * 20 resources with prices, 4 training courses, 3 packages with permissions and credits, and
 * `members` members with addresses, billing fields, notes, metadata, most with a key card, a
 * training and a package; bookings ahead on the bookable machines. The owner's e-mail address
 * is `ownerEmail` and the owner's token is answered: start `makerspace-hub serve` on the same
 * data directory with it.
 */
export async function seedMovingInSource(
  dataDir: string,
  options: { members?: number; ownerEmail?: string } = {},
): Promise<{ token: string; counts: Record<string, number> }> {
  const members = options.members ?? 1000;
  const settings = {
    ...testSettings(join(dataDir, 'hub.sqlite')),
    dataDir,
    secretFile: join(dataDir, 'secret.key'),
    sqliteSynchronous: 'normal' as const,
  };
  const hub = await openHub(settings, { logger: createLogger({ name: 'seed', level: 'silent' }) });
  try {
    const owner = await createAccountWithOwner(hub.ctx.db, hub.ctx.tokens, {
      accountName: 'Fablab Source',
      emailAddress: options.ownerEmail ?? 'owner@source.example',
      firstName: 'Olga',
      lastName: 'Owner',
      timezone: 'Europe/Berlin',
    });
    const call = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) => {
      const res = await hub.app.inject({
        method,
        url: `/api/v1${url}`,
        headers: { authorization: `Bearer ${owner.token}` },
        payload: payload as never,
      });
      if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
      return res.body ? res.json() : null;
    };
    const space = owner.spaceId;
    const counts: Record<string, number> = {};
    const count = (kind: string) => {
      counts[kind] = (counts[kind] ?? 0) + 1;
    };
    const hours = [1, 2, 3, 4, 5, 6, 7].map((d) => ({ dayOfWeek: d, fromTime: '08:00', untilTime: '22:00' }));
    await call('PUT', `/spaces/${space}/opening-hours`, hours);
    counts.openingHours = hours.length;
    for (const [title, from, until] of [
      ['Christmas', '2030-12-24T00:00', '2030-12-27T00:00'],
      ['New Year', '2030-12-31T12:00', '2031-01-02T00:00'],
    ]) {
      await call('POST', `/spaces/${space}/holidays`, { title, fromDateTime: from, untilDateTime: until });
      count('holiday');
    }
    const types: number[] = [];
    for (const name of ['Laser cutters', '3D printers', 'Doors']) {
      types.push((await call('POST', '/resource-types', { name })).id);
      count('resourceType');
    }
    const resources: { id: number; bookable: boolean }[] = [];
    for (let i = 1; i <= 20; i++) {
      const bookable = i <= 5;
      const r = await call('POST', '/resources', {
        name: `Machine ${i}`,
        space,
        type: types[i % 3],
        controlType: i % 3 === 2 ? 'door' : 'machine',
        canBeBooked: bookable,
        pricePerTimeBusy: bookable ? '2.50' : '0.00',
        pricePerTimeBusySeconds: 3600,
        pricePerBooking: i === 1 ? '5.00' : '0.00',
        metadata: { inventory: `INV-${1000 + i}` },
      });
      resources.push({ id: r.id, bookable });
      count('resource');
    }
    const courses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const c = await call('POST', '/training-courses', {
        title: `Course ${i + 1}`,
        resources: resources.slice(i * 5, i * 5 + 5).map((r) => r.id),
        defaultDuration: 12,
        defaultDurationUnit: 'month',
      });
      courses.push(c.id);
      count('trainingCourse');
    }
    const packages: number[] = [];
    for (const [i, name] of ['Basic', 'Maker', 'Company'].entries()) {
      const p = await call('POST', '/packages', {
        name,
        recurringFee: `${20 + i * 15}.00`,
        recurringFeePeriod: 'month',
        setupFee: '10.00',
        metadata: { tier: i },
      });
      packages.push(p.id);
      count('package');
      const permission =
        i === 0
          ? { type: 'resourceType', resourceType: types[2] }
          : i === 1
            ? {
                type: 'resource',
                resource: resources[3].id,
                timeType: 'custom',
                times: [{ dayOfWeek: 1, fromTime: '10:00', untilTime: '18:00' }],
              }
            : { type: 'everything' };
      await call('POST', `/packages/${p.id}/permissions`, permission);
      count('packagePermission');
      const credit = await call('POST', `/packages/${p.id}/credits`);
      await call('PUT', `/packages/${p.id}/credits/${credit.id}`, {
        lockVersion: credit.lockVersion,
        scope: 'usage',
        amount: '10.00',
        period: 'month',
        resources: [{ type: 'resourceType', resourceType: types[0] }],
      });
      count('packageCredit');
    }
    const memberIds: number[] = [];
    for (let i = 1; i <= members; i++) {
      const m = await call('POST', '/members', {
        firstName: `Ada${i}`,
        lastName: i % 7 === 0 ? 'Müller-Lüdenscheidt' : `Lovelace${i}`,
        emailAddress: `member${i}@source.example`,
        memberNumber: `M-${String(i).padStart(5, '0')}`,
        address: `Hauptstraße ${i}`,
        city: 'Wien',
        zip: '1010',
        countryCode: 'AT',
        phone: `+43 1 ${1000 + i}`,
        dateOfBirth: `19${50 + (i % 50)}-0${1 + (i % 9)}-1${i % 9}`,
        notes: i % 10 === 0 ? 'Pays in cash' : null,
        metadata: { legacyId: i },
        hasBillingAddress: i % 5 === 0,
        billingCompany: i % 5 === 0 ? `Company ${i}` : null,
        state: i % 50 === 0 ? 'locked' : 'active',
      });
      memberIds.push(m.id);
      count('member');
      if (i % 10 !== 0) {
        await call('PUT', `/members/${m.id}/key`, {
          type: 'em4102',
          token: (0x1000000000 + i).toString(16).toUpperCase(),
        });
        count('memberKey');
      }
      if (i % 3 !== 0) {
        await call('POST', `/members/${m.id}/trainings`, {
          trainingCourse: courses[i % 4],
          date: '2025-03-01',
        });
        count('memberTraining');
      }
      if (i % 5 !== 0) {
        await call('POST', `/members/${m.id}/packages`, { package: packages[i % 3], fromDate: '2025-01-01' });
        count('memberPackage');
      }
    }
    // Bookings ahead: one hour at 12:00 UTC (13:00 or 14:00 in Berlin), days 1..20 ahead.
    const day = 86_400_000;
    const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
    for (let i = 0; i < 100; i++) {
      const r = resources[i % 5];
      const from = new Date(today + (1 + Math.floor(i / 5)) * day + 12 * 3600_000);
      await call('POST', '/bookings', {
        resource: r.id,
        member: memberIds[i],
        fromDateTime: from.toISOString(),
        untilDateTime: new Date(from.getTime() + 3600_000).toISOString(),
      });
      count('booking');
    }
    return { token: owner.token, counts };
  } finally {
    await hub.close();
  }
}
