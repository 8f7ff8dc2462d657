// IP addresses as bytes, and CIDR prefixes over them. The SSRF guard needs to know *which* special
// range an address falls in (for the stored error and the docs table), and to look inside IPv6 forms
// that embed an IPv4 address; node's `net.BlockList` answers only "in the list or not", so the
// matching here is a plain byte-prefix compare over a table.
import { isIPv4, isIPv6 } from 'node:net';

/** An IP address in network byte order: 4 bytes for IPv4, 16 for IPv6. */
export interface IpBytes {
  readonly family: 4 | 6;
  readonly bytes: Uint8Array;
}

/** An address prefix such as `10.0.0.0/8` or `fc00::/7`. */
export interface Cidr {
  readonly family: 4 | 6;
  readonly bytes: Uint8Array;
  readonly prefix: number;
  /** The canonical text, e.g. `127.0.0.1/32`. */
  readonly text: string;
}

/** Strips `[` `]` around an IPv6 literal and a `%zone` suffix. */
export function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/**
 * Parses a canonical IPv4 dotted quad or any IPv6 text form (with `::`, an embedded dotted IPv4
 * tail, brackets, or a `%zone`). Returns `undefined` for anything else: the non-canonical IPv4
 * spellings (`0x7f.1`, `2130706433`) are the URL parser's business, not ours; a resolver never
 * returns them.
 */
export function parseIp(text: string): IpBytes | undefined {
  let s = stripBrackets(text.trim());
  const zone = s.indexOf('%');
  if (zone !== -1) s = s.slice(0, zone);
  if (isIPv4(s)) return { family: 4, bytes: Uint8Array.from(s.split('.').map(Number)) };
  if (!isIPv6(s)) return undefined;
  return { family: 6, bytes: parseIPv6(s) };
}

function parseIPv6(s: string): Uint8Array {
  const out = new Uint8Array(16);
  let tail: number[] = [];
  // An embedded IPv4 tail (`::ffff:1.2.3.4`) stands for the last two groups.
  const lastColon = s.lastIndexOf(':');
  const after = s.slice(lastColon + 1);
  if (after.includes('.')) {
    tail = after.split('.').map(Number);
    s = `${s.slice(0, lastColon + 1)}0:0`;
  }
  const [head, rest] = s.includes('::') ? s.split('::') : [s, undefined];
  const groups = (part: string | undefined) =>
    part ? part.split(':').map((g) => Number.parseInt(g, 16)) : [];
  const left = groups(head);
  const right = groups(rest);
  const all =
    rest === undefined ? left : [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
  all.forEach((g, i) => {
    out[i * 2] = g >> 8;
    out[i * 2 + 1] = g & 0xff;
  });
  if (tail.length === 4) out.set(tail, 12);
  return out;
}

/** Canonical text: dotted quad, or RFC 5952 IPv6 (lower case, longest zero run as `::`). */
export function formatIp(ip: IpBytes): string {
  if (ip.family === 4) return Array.from(ip.bytes).join('.');
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((ip.bytes[i]! << 8) | ip.bytes[i + 1]!);
  let bestStart = -1;
  let bestLen = 1; // RFC 5952 4.2.2: a single zero group is not shortened
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart === -1) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

/** The IPv4 address held in four bytes of an IPv6 address, starting at `offset`. */
export function embeddedIPv4(ip: IpBytes, offset: number): IpBytes {
  return { family: 4, bytes: ip.bytes.slice(offset, offset + 4) };
}

/** True when the first `cidr.prefix` bits of `ip` equal the prefix's. */
export function inCidr(ip: IpBytes, cidr: Cidr): boolean {
  if (ip.family !== cidr.family) return false;
  const full = cidr.prefix >> 3;
  for (let i = 0; i < full; i++) if (ip.bytes[i] !== cidr.bytes[i]) return false;
  const bits = cidr.prefix & 7;
  if (bits === 0) return true;
  const mask = (0xff << (8 - bits)) & 0xff;
  return (ip.bytes[full]! & mask) === (cidr.bytes[full]! & mask);
}

/**
 * Parses `addr/prefix` (or a bare address, meaning /32 or /128). Returns an error message instead of
 * throwing so callers can name the setting the text came from. Host bits set after the prefix
 * (`10.0.0.1/8`) are refused: in a security setting a typo should not silently widen or shift a range.
 */
export function parseCidr(text: string): Cidr | string {
  const trimmed = text.trim();
  const slash = trimmed.indexOf('/');
  const addrText = slash === -1 ? trimmed : trimmed.slice(0, slash);
  const ip = parseIp(addrText);
  if (!ip || addrText.includes('%')) return `"${trimmed}" is not an IPv4 or IPv6 address or CIDR`;
  const max = ip.family === 4 ? 32 : 128;
  let prefix = max;
  if (slash !== -1) {
    const p = trimmed.slice(slash + 1);
    if (!/^\d{1,3}$/.test(p) || Number(p) > max)
      return `"${trimmed}" has an invalid prefix length (0-${max})`;
    prefix = Number(p);
  }
  const masked = new Uint8Array(ip.bytes.length);
  for (let i = 0; i < ip.bytes.length; i++) {
    const bits = Math.max(0, Math.min(8, prefix - i * 8));
    masked[i] = ip.bytes[i]! & ((0xff << (8 - bits)) & 0xff);
  }
  const network = formatIp({ family: ip.family, bytes: masked });
  if (masked.some((b, i) => b !== ip.bytes[i])) {
    return `"${trimmed}" has host bits set after the prefix; did you mean ${network}/${prefix}?`;
  }
  return { family: ip.family, bytes: masked, prefix, text: `${network}/${prefix}` };
}

/** Like {@link parseCidr} for constants known to be valid; throws otherwise. */
export function cidr(text: string): Cidr {
  const parsed = parseCidr(text);
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
}
