/**
 * Money without floats. Amounts are bigints in ten-thousandths of the currency unit (the wire
 * allows up to 4 decimals, e.g. a price per minute of "0.0125"). Charges, invoices and payments
 * are rounded to cents, half away from zero; percentages use the same scale ("19.5" -> 195000).
 */
export type Amount = bigint;

const SCALE = 10_000n;
const CENT = 100n;
const pattern = /^(-)?(\d{1,12})(?:\.(\d{1,4}))?$/;

export const ZERO: Amount = 0n;

export function parseMoney(text: string | number | null | undefined): Amount {
  if (text === null || text === undefined || text === '') return 0n;
  const s = typeof text === 'number' ? String(text) : text.trim();
  const m = pattern.exec(s);
  if (!m) throw new RangeError(`Not a decimal amount: ${s}`);
  const value = BigInt(m[2]) * SCALE + BigInt((m[3] ?? '').padEnd(4, '0'));
  return m[1] ? -value : value;
}

/** Divides rounding half away from zero. */
function divRound(n: bigint, d: bigint): bigint {
  const negative = n < 0n !== d < 0n;
  const an = n < 0n ? -n : n;
  const ad = d < 0n ? -d : d;
  const q = (an * 2n + ad) / (ad * 2n);
  return negative ? -q : q;
}

export function roundToCents(v: Amount): Amount {
  return divRound(v, CENT) * CENT;
}

/** "12.34" (always two decimals; more when the amount has sub-cent digits, e.g. unit prices). */
export function formatMoney(v: Amount): string {
  const negative = v < 0n;
  const a = negative ? -v : v;
  const whole = a / SCALE;
  let frac = (a % SCALE).toString().padStart(4, '0');
  frac = frac.replace(/0+$/, '');
  if (frac.length < 2) frac = frac.padEnd(2, '0');
  return `${negative ? '-' : ''}${whole}.${frac}`;
}

/** Percentages are shown without trailing zeros: "20", "12.5". */
export function formatPercent(v: Amount): string {
  const s = formatMoney(v);
  return s.replace(/\.?0+$/, '') || '0';
}

/** v * percent / 100, rounded to cents. */
export function percentOf(v: Amount, percent: Amount): Amount {
  return roundToCents(divRound(v * percent, 100n * SCALE));
}

/** The net part of a gross (tax-inclusive) amount, rounded to cents. */
export function netOf(gross: Amount, taxPercent: Amount): Amount {
  return roundToCents(divRound(gross * 100n * SCALE, 100n * SCALE + taxPercent));
}

export function sum(values: Iterable<Amount>): Amount {
  let total = 0n;
  for (const v of values) total += v;
  return total;
}

export const min = (a: Amount, b: Amount): Amount => (a < b ? a : b);
export const max = (a: Amount, b: Amount): Amount => (a > b ? a : b);
