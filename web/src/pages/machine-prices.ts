/**
 * What using a machine costs the member, as its page says before switch-on: the resource's usage
 * prices, and what the member's packages take off (the best usage discount of a package
 * permission that covers the resource) and pay first (current credits for usage that apply to
 * it). The calls are public /api/v1 operations through the app's one `call`; the words are
 * computed here, without the page, so they are tested on their own.
 */
import type { MemberPackageRecord, ResourceRecord } from '@makerspace/shared';
import { api, call } from '../api';
import { locale, t } from '../i18n/i18n';

export type ResourcePrices = Pick<
  ResourceRecord,
  | 'id'
  | 'type'
  | 'pricePerUsage'
  | 'pricePerTimeBusy'
  | 'pricePerTimeBusySeconds'
  | 'pricePerTimeIdle'
  | 'pricePerTimeIdleSeconds'
  | 'pricingMinDurationSeconds'
>;

export interface Permission {
  type: 'everything' | 'resourceType' | 'resource';
  resourceType: number | null;
  resource: number | null;
  usageFeeDiscountPercent: string;
}

export interface Credit {
  scope: string;
  remaining: string;
  untilDate: string | null;
  resources: { type: string; resourceType?: number | null; resource?: number | null }[];
}

export interface HeldPackage {
  name: string;
  permissions: Permission[];
}

/** 2.5 -> "2.50"; whole amounts keep their cents, as prices read. */
export function amount(text: string): string {
  const n = Number(text);
  return Number.isFinite(n)
    ? n.toLocaleString(locale(), { minimumFractionDigits: 2, maximumFractionDigits: 2 })
    : text;
}

const units = [
  [86_400, 'day'],
  [3600, 'hour'],
  [60, 'minute'],
  [1, 'second'],
] as const;

/** The unit a time price counts in: 3600 -> "hour", 900 -> "15 minutes", 1 -> "second". */
export function unit(seconds: number): string {
  const [size, name] = units.find(([size]) => seconds % size === 0) ?? units[3];
  return t(`prices.unit.${name}`, { count: seconds / size });
}

/** The same as an amount of time: 3600 -> "1 hour", 900 -> "15 minutes". */
function span(seconds: number): string {
  const [size, name] = units.find(([size]) => seconds % size === 0) ?? units[3];
  return t(`prices.atLeastUnit.${name}`, { count: seconds / size });
}

const positive = (text: string) => Number(text) > 0;

/** Does a package permission cover this resource? */
function covers(p: Permission, resource: ResourcePrices): boolean {
  if (p.type === 'everything') return true;
  if (p.type === 'resource') return p.resource === resource.id;
  return resource.type !== null && p.resourceType === resource.type;
}

/** Does a credit pay for using this resource (scope and resource filter)? */
function pays(c: Credit, resource: ResourcePrices): boolean {
  if (c.scope !== 'usage' && c.scope !== 'global') return false;
  if (!positive(c.remaining)) return false;
  if (c.resources.length === 0) return true;
  return c.resources.some((f) =>
    f.type === 'resource'
      ? f.resource === resource.id
      : resource.type !== null && f.resourceType === resource.type,
  );
}

export interface PriceFacts {
  /** The prices, one per line ("2.50 per use", "12.00 per hour"); empty when using it is free. */
  prices: string[];
  /** The package that gives the best discount on them, if any. */
  discount: { percent: string; packageName: string } | null;
  /** What the member's credits that pay for it have left, in total, and until when the first ends. */
  credit: { remaining: string; untilDate: string | null } | null;
}

/** The price facts of a resource for a member holding these packages and credits. */
export function priceFacts(resource: ResourcePrices, held: HeldPackage[], credits: Credit[]): PriceFacts {
  const prices: string[] = [];
  if (positive(resource.pricePerUsage))
    prices.push(t('prices.perUse', { amount: amount(resource.pricePerUsage) }));
  if (positive(resource.pricePerTimeBusy))
    prices.push(
      t('prices.perUnit', {
        amount: amount(resource.pricePerTimeBusy),
        unit: unit(resource.pricePerTimeBusySeconds),
      }),
    );
  if (positive(resource.pricePerTimeIdle))
    prices.push(
      t('prices.perUnitIdle', {
        amount: amount(resource.pricePerTimeIdle),
        unit: unit(resource.pricePerTimeIdleSeconds),
      }),
    );
  const timed = positive(resource.pricePerTimeBusy) || positive(resource.pricePerTimeIdle);
  if (timed && resource.pricingMinDurationSeconds > 0)
    prices.push(t('prices.atLeast', { unit: span(resource.pricingMinDurationSeconds) }));
  if (prices.length === 0) return { prices, discount: null, credit: null };

  let discount: PriceFacts['discount'] = null;
  for (const pkg of held)
    for (const p of pkg.permissions) {
      if (!covers(p, resource) || !positive(p.usageFeeDiscountPercent)) continue;
      if (!discount || Number(p.usageFeeDiscountPercent) > Number(discount.percent))
        discount = { percent: p.usageFeeDiscountPercent, packageName: pkg.name };
    }

  const paying = credits.filter((c) => pays(c, resource));
  const credit = paying.length
    ? {
        remaining: amount(String(paying.reduce((sum, c) => sum + Number(c.remaining), 0))),
        untilDate:
          paying
            .map((c) => c.untilDate)
            .filter((d): d is string => d !== null)
            .sort()[0] ?? null,
      }
    : null;
  return { prices, discount, credit };
}

/** "20" -> "20 %", "12.50" -> "12.5 %". */
export const percent = (text: string) =>
  `${Number(text).toLocaleString(locale(), { maximumFractionDigits: 2 })} %`;

/** The member's packages of today (in the space's zone) with their permissions. */
async function heldPackages(member: number, today: string): Promise<HeldPackage[]> {
  const mine = (await api.packages(member)) as (MemberPackageRecord & {
    _embedded?: { package?: { name: string } | null };
  })[];
  const current = mine.filter((p) => p.fromDate <= today && (p.untilDate === null || p.untilDate >= today));
  const ids = [...new Set(current.map((p) => p.package))];
  return Promise.all(
    ids.map(async (id) => ({
      name: current.find((p) => p.package === id)?._embedded?.package?.name ?? t('common.package', { id }),
      permissions: await call<Permission[]>('GET', `/packages/${id}/permissions?limit=1000`),
    })),
  );
}

/** Today's date (YYYY-MM-DD) in a time zone. */
function todayIn(zone: string): string {
  return new Date().toLocaleDateString('en-CA', { timeZone: zone });
}

/**
 * Reads what the page needs for the prices: the resource's record, and the member's packages,
 * their permissions and current credits. A member whose packages cannot be read still sees the
 * prices.
 */
export async function loadPriceFacts(resourceId: number, member: number, zone: string): Promise<PriceFacts> {
  const resource = await call<ResourcePrices>('GET', `/resources/${resourceId}`);
  const [held, credits] = await Promise.all([
    heldPackages(member, todayIn(zone)).catch(() => []),
    (api.credits(member) as Promise<unknown> as Promise<Credit[]>).catch(() => []),
  ]);
  return priceFacts(resource, held, credits);
}
