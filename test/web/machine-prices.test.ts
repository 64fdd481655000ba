import { describe, expect, it } from 'vitest';
import {
  type Credit,
  type HeldPackage,
  priceFacts,
  type ResourcePrices,
  unit,
} from '../../web/src/pages/machine-prices';

const laser: ResourcePrices = {
  id: 7,
  type: 3,
  pricePerUsage: '1.5',
  pricePerTimeBusy: '12.00',
  pricePerTimeBusySeconds: 3600,
  pricePerTimeIdle: '0.00',
  pricePerTimeIdleSeconds: 3600,
  pricingMinDurationSeconds: 0,
};
const free: ResourcePrices = { ...laser, id: 8, pricePerUsage: '0.00', pricePerTimeBusy: '0.00' };
const permission = (over: Partial<HeldPackage['permissions'][number]>) => ({
  type: 'everything' as const,
  resourceType: null,
  resource: null,
  usageFeeDiscountPercent: '0.00',
  ...over,
});
const credit = (over: Partial<Credit>): Credit => ({
  scope: 'usage',
  remaining: '5.00',
  untilDate: null,
  resources: [],
  ...over,
});

describe('machine page prices: what using a machine costs a member', () => {
  it('names each price of the resource in its unit', () => {
    expect(priceFacts(laser, [], []).prices).toEqual(['1.50 per use', '12.00 per hour']);
    expect(
      priceFacts(
        { ...laser, pricePerTimeIdle: '2', pricePerTimeIdleSeconds: 900, pricingMinDurationSeconds: 60 },
        [],
        [],
      ).prices,
    ).toEqual([
      '1.50 per use',
      '12.00 per hour',
      '2.00 per 15 minutes while idle',
      'at least 1 minute is charged',
    ]);
    expect(priceFacts(free, [], []).prices).toEqual([]);
    expect([unit(1), unit(60), unit(86_400), unit(7200), unit(90)]).toEqual([
      'second',
      'minute',
      'day',
      '2 hours',
      '90 seconds',
    ]);
  });

  it('takes the best discount of the permissions that cover the resource, naming its package', () => {
    const held: HeldPackage[] = [
      { name: 'Basic', permissions: [permission({ usageFeeDiscountPercent: '10' })] },
      {
        name: 'Laser fans',
        permissions: [
          permission({ type: 'resource', resource: 7, usageFeeDiscountPercent: '25' }),
          permission({ type: 'resource', resource: 99, usageFeeDiscountPercent: '90' }),
          permission({ type: 'resourceType', resourceType: 4, usageFeeDiscountPercent: '80' }),
        ],
      },
    ];
    expect(priceFacts(laser, held, []).discount).toEqual({ percent: '25', packageName: 'Laser fans' });
    expect(priceFacts(laser, [held[0]], []).discount).toEqual({ percent: '10', packageName: 'Basic' });
    expect(priceFacts(laser, [{ name: 'None', permissions: [permission({})] }], []).discount).toBeNull();
    // Nothing to take off a machine that is free.
    expect(priceFacts(free, held, []).discount).toBeNull();
  });

  it('adds up the credits that pay for its usage: right scope, resource filter, something left', () => {
    const credits = [
      credit({ remaining: '5.00', untilDate: '2026-12-01' }),
      credit({ scope: 'global', remaining: '2.50', untilDate: '2026-11-30' }),
      credit({ scope: 'booking', remaining: '100.00' }),
      credit({ remaining: '0.00' }),
      credit({ remaining: '40.00', resources: [{ type: 'resource', resource: 99 }] }),
      credit({ remaining: '1.00', resources: [{ type: 'resourceType', resourceType: 3 }] }),
    ];
    expect(priceFacts(laser, [], credits).credit).toEqual({ remaining: '8.50', untilDate: '2026-11-30' });
    expect(priceFacts(laser, [], [credits[2]]).credit).toBeNull();
  });
});
