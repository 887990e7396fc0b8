/**
 * Is an IP address one that a server may reach on a user's behalf (`pdf_url`, `callback_url`)?
 * One check for every spelling: IPv6 is parsed to its eight 16-bit groups, so the mapped form
 * `::ffff:127.0.0.1`, its hex form `::ffff:7f00:1`, the IPv4-compatible `::127.0.0.1`, NAT64
 * `64:ff9b::/96`, 6to4 `2002::/16` and Teredo `2001::/32` are judged by the IPv4 address they
 * carry. IPv6 is otherwise public only inside global unicast `2000::/3`, minus the special-purpose
 * ranges there. IPv4 in other spellings (`0x7f.1`, `2130706433`) is normalised by the WHATWG URL
 * parser before it gets here; `net.isIP` decides what is an address at all.
 *
 * Pure (no I/O); the resolver and the pinned connections live in src/server/net/ (check.ts, pinned.ts).
 */
import net from 'node:net';

/** [first address, prefix length, why it is not public] */
type V4Range = [string, number, string];

const V4_BLOCKED: V4Range[] = [
  ['0.0.0.0', 8, 'this-network (0/8)'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.31.196.0', 24, 'AS112'],
  ['192.52.193.0', 24, 'AMT'],
  ['192.88.99.0', 24, '6to4 relay anycast'],
  ['192.168.0.0', 16, 'private'],
  ['192.175.48.0', 24, 'AS112'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

function v4ToInt(ip: string): number {
  return ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);
}

const V4_TABLE = V4_BLOCKED.map(([base, bits, why]) => ({ base: v4ToInt(base), size: 2 ** (32 - bits), why }));

function v4Reason(n: number): string | null {
  for (const r of V4_TABLE) if (n >= r.base && n < r.base + r.size) return r.why;
  return null;
}

function intToV4(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** The eight 16-bit groups of an IPv6 address (dotted-quad tail allowed), or null. */
export function parseIPv6(raw: string): number[] | null {
  const ip = raw.replace(/^\[|\]$/g, '');
  if (!net.isIPv6(ip) || ip.includes('%')) return null;
  let text = ip.toLowerCase();
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad) {
    const n = v4ToInt(quad[1]);
    text = `${text.slice(0, -quad[1].length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const part = (s: string | undefined): number[] => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const h = part(head);
  const t = part(tail);
  const groups = tail === undefined ? h : [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : null;
}

function v4Of(hi: number, lo: number): number {
  return hi * 65536 + lo;
}

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4, Teredo), as [label, n]. */
function embeddedV4(g: number[]): [string, number][] {
  const zero = (from: number, to: number): boolean => g.slice(from, to).every((x) => x === 0);
  if (zero(0, 5) && g[5] === 0xffff) return [['IPv4-mapped', v4Of(g[6], g[7])]];
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return [['IPv4-translated', v4Of(g[6], g[7])]];
  if (zero(0, 6)) return [['IPv4-compatible', v4Of(g[6], g[7])]];
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return [['NAT64', v4Of(g[6], g[7])]];
  if (g[0] === 0x2002) return [['6to4', v4Of(g[1], g[2])]];
  if (g[0] === 0x2001 && g[1] === 0)
    return [
      ['Teredo server', v4Of(g[2], g[3])],
      ['Teredo client', v4Of(g[6] ^ 0xffff, g[7] ^ 0xffff)],
    ];
  return [];
}

/** Special-purpose ranges inside global unicast 2000::/3 (Teredo and 6to4 are judged by their IPv4). */
const V6_BLOCKED: { prefix: number[]; bits: number; why: string }[] = [
  { prefix: [0x2001, 0x0002, 0x0000], bits: 48, why: 'benchmarking' },
  { prefix: [0x2001, 0x0000], bits: 23, why: 'IETF protocol assignments (2001::/23)' },
  { prefix: [0x2001, 0x0db8], bits: 32, why: 'documentation' },
  { prefix: [0x3fff, 0x0000], bits: 20, why: 'documentation' },
];

function inPrefix(g: number[], prefix: number[], bits: number): boolean {
  for (let i = 0; i < prefix.length && bits > 0; i++, bits -= 16) {
    const mask = bits >= 16 ? 0xffff : (0xffff << (16 - bits)) & 0xffff;
    if ((g[i] & mask) !== (prefix[i] & mask)) return false;
  }
  return true;
}

/**
 * Why this address must not be reached (e.g. "loopback", "IPv4-mapped 127.0.0.1: loopback"), or
 * null when it is public. Anything that is not an IP address at all is refused too.
 */
export function nonPublicReason(raw: string): string | null {
  const ip = raw.replace(/^\[|\]$/g, '');
  if (net.isIPv4(ip)) return v4Reason(v4ToInt(ip));
  const g = parseIPv6(ip);
  if (!g) return 'not an IP address';
  if (g.every((x) => x === 0)) return 'unspecified';
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return 'loopback';
  const embedded = embeddedV4(g);
  for (const [label, n] of embedded) {
    const why = v4Reason(n);
    if (why) return `${label} ${intToV4(n)}: ${why}`;
  }
  // Mapped, compatible, NAT64, 6to4 and Teredo addresses lead to the IPv4 addresses they carry:
  // when those are public, so is the address.
  if (embedded.length) return null;
  const top = g[0];
  if (top === 0x64 && g[1] === 0xff9b) return 'NAT64 local use (64:ff9b:1::/48)';
  if ((top & 0xff00) === 0xff00) return 'multicast';
  if ((top & 0xffc0) === 0xfe80) return 'link-local';
  if ((top & 0xffc0) === 0xfec0) return 'site-local';
  if ((top & 0xfe00) === 0xfc00) return 'unique-local';
  if (top === 0x0100 && g.slice(1, 4).every((x) => x === 0)) return 'discard-only (100::/64)';
  if ((top & 0xe000) !== 0x2000) return 'not global unicast (outside 2000::/3)';
  for (const b of V6_BLOCKED) if (inPrefix(g, b.prefix, b.bits)) return b.why;
  return null;
}

export function isPublicAddress(ip: string): boolean {
  return nonPublicReason(ip) === null;
}
