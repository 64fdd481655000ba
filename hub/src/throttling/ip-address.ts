/** The eight 16-bit groups of an IPv6 address (any spelling, dotted tail included). */
export function ipv6Groups(address: string): number[] | null {
  let canonical: string;
  try {
    // The WHATWG URL parser writes every IPv6 spelling in one canonical, all-hex form.
    canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
  const [head, tail] = canonical.split('::');
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => Number.parseInt(g, 16)) : []);
  const left = part(head);
  const right = part(tail);
  if (tail === undefined) return left.length === 8 ? left : null;
  return [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
}
