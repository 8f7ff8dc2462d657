// Which addresses a webhook may be delivered to. Sources: the IANA IPv4 and IPv6 Special-Purpose
// Address Registries (RFC 6890 and updates), RFC 6052 / 8215 (NAT64), RFC 3056 / 7526 (6to4),
// RFC 4380 (Teredo), RFC 9637 (IPv6 documentation 3fff::/20). The rule is "deliver only to globally
// routable unicast": IPv6 outside 2000::/3 is refused wholesale, so a range IANA assigns tomorrow is
// refused until it is understood.
import { type Cidr, cidr, embeddedIPv4, formatIp, type IpBytes, inCidr, parseIp } from './ip.js';

/** The range an address falls in. Everything except `global` is blocked unless allow-listed. */
export type AddressCategory =
  | 'global'
  | 'unspecified'
  | 'this-network'
  | 'loopback'
  | 'private'
  | 'cgnat'
  | 'link-local'
  | 'cloud-metadata'
  | 'ietf-protocol'
  | 'documentation'
  | 'benchmarking'
  | '6to4-relay'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'ipv4-compatible'
  | 'nat64-local'
  | 'discard'
  | 'teredo'
  | '6to4'
  | 'unique-local'
  | 'site-local'
  | 'invalid';

interface Range {
  readonly cidr: Cidr;
  readonly category: AddressCategory;
  /**
   * Where an IPv4 address is embedded. `translate`: the IPv6 address reaches that IPv4 host (mapped,
   * NAT64), so it is classified as that host. `inspect`: the form is refused anyway; the embedded
   * address is only reported.
   */
  readonly embedded?: { readonly offset: number; readonly mode: 'translate' | 'inspect' };
}

const range = (text: string, category: AddressCategory, embedded?: Range['embedded']): Range =>
  embedded ? { cidr: cidr(text), category, embedded } : { cidr: cidr(text), category };

/** First match wins, so more specific prefixes come first. */
const IPV4_RANGES: readonly Range[] = [
  range('0.0.0.0/32', 'unspecified'),
  range('0.0.0.0/8', 'this-network'), // RFC 791; Linux connects 0.0.0.0 to the local host
  range('10.0.0.0/8', 'private'), // RFC 1918
  range('100.64.0.0/10', 'cgnat'), // RFC 6598 shared address space (also Alibaba's metadata 100.100.100.200)
  range('127.0.0.0/8', 'loopback'),
  range('169.254.169.254/32', 'cloud-metadata'), // AWS, GCP, Azure, OpenStack instance metadata
  range('169.254.0.0/16', 'link-local'), // RFC 3927
  range('172.16.0.0/12', 'private'),
  range('192.0.0.0/24', 'ietf-protocol'), // RFC 6890 (includes DS-Lite 192.0.0.0/29)
  range('192.0.2.0/24', 'documentation'), // TEST-NET-1, RFC 5737
  range('192.88.99.0/24', '6to4-relay'), // RFC 7526, deprecated anycast
  range('192.168.0.0/16', 'private'),
  range('198.18.0.0/15', 'benchmarking'), // RFC 2544
  range('198.51.100.0/24', 'documentation'), // TEST-NET-2
  range('203.0.113.0/24', 'documentation'), // TEST-NET-3
  range('224.0.0.0/4', 'multicast'),
  range('255.255.255.255/32', 'broadcast'),
  range('240.0.0.0/4', 'reserved'), // RFC 1112 "future use"
];

const IPV6_RANGES: readonly Range[] = [
  range('::/128', 'unspecified'),
  range('::1/128', 'loopback'),
  range('::ffff:0:0/96', 'global', { offset: 12, mode: 'translate' }), // IPv4-mapped, RFC 4291
  range('::/96', 'ipv4-compatible', { offset: 12, mode: 'inspect' }), // deprecated by RFC 4291
  range('64:ff9b::/96', 'global', { offset: 12, mode: 'translate' }), // NAT64 well-known prefix, RFC 6052
  range('64:ff9b:1::/48', 'nat64-local'), // local-use NAT64, RFC 8215: site-specific embedding
  range('100::/64', 'discard'), // RFC 6666
  range('2001::/32', 'teredo'), // RFC 4380: tunnels to an (obfuscated) IPv4 client
  range('2001::/23', 'ietf-protocol'), // RFC 2928: ORCHID, AMT, AS112 ... no webhook lives here
  range('2001:db8::/32', 'documentation'), // RFC 3849
  range('2002::/16', '6to4', { offset: 2, mode: 'inspect' }), // RFC 3056, deprecated by RFC 7526
  range('3fff::/20', 'documentation'), // RFC 9637
  range('fc00::/7', 'unique-local'), // RFC 4193 (AWS IPv6 metadata fd00:ec2::254 is here)
  range('fe80::/10', 'link-local'),
  range('fec0::/10', 'site-local'), // deprecated by RFC 3879, still routed on some networks
  range('ff00::/8', 'multicast'),
  range('2000::/3', 'global'), // global unicast; everything else is unassigned or reserved
  range('::/0', 'reserved'),
];

/** The outcome of {@link classifyAddress}. */
export interface AddressClassification {
  /** The address in canonical form (`127.0.0.1`, `::ffff:7f00:1`), or the input if it is not an IP. */
  readonly address: string;
  readonly family: 4 | 6 | undefined;
  readonly category: AddressCategory;
  /** The prefix that matched, e.g. `10.0.0.0/8`. */
  readonly range?: string;
  /** True unless `category` is `global`. */
  readonly blocked: boolean;
  /** For IPv6 forms that carry an IPv4 address (mapped, NAT64, 6to4, Teredo, compatible): that address. */
  readonly embedded?: AddressClassification;
}

function classifyBytes(ip: IpBytes): AddressClassification {
  const address = formatIp(ip);
  const table = ip.family === 4 ? IPV4_RANGES : IPV6_RANGES;
  const match = table.find((r) => inCidr(ip, r.cidr));
  // No IPv4 range matched: an ordinary public address. (The IPv6 table ends with ::/0.)
  if (!match) return { address, family: ip.family, category: 'global', blocked: false };
  if (!match.embedded) {
    return {
      address,
      family: ip.family,
      category: match.category,
      range: match.cidr.text,
      blocked: match.category !== 'global',
    };
  }
  const embedded = classifyBytes(embeddedIPv4(ip, match.embedded.offset));
  // A mapped or NAT64 address reaches the embedded IPv4 host: it is exactly as blocked as that host.
  const category = match.embedded.mode === 'translate' ? embedded.category : match.category;
  return {
    address,
    family: 6,
    category,
    range: match.cidr.text,
    blocked: category !== 'global',
    embedded,
  };
}

/**
 * Classifies one IP address (IPv4 dotted quad or any IPv6 text; brackets and `%zone` accepted).
 * Input that is not an IP address gets category `invalid` and is blocked, so callers fail closed.
 * @example
 * classifyAddress('::ffff:169.254.169.254').category; // 'cloud-metadata'
 * classifyAddress('93.184.215.14').blocked;           // false
 */
export function classifyAddress(ip: string): AddressClassification {
  const parsed = parseIp(ip);
  if (!parsed) return { address: ip, family: undefined, category: 'invalid', blocked: true };
  return classifyBytes(parsed);
}

/** A parsed allow-list: CIDRs whose addresses may be delivered to even though they are special. */
export type AllowList = readonly Cidr[];

/**
 * True when `address` is allow-listed. An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) is the same
 * host as its IPv4 address, so an IPv4 entry covers it too; NAT64 forms are not (they go through a
 * translator, a different path).
 * @example
 * isAllowListed('::ffff:127.0.0.1', parseAllowList('127.0.0.1/32')); // true
 */
export function isAllowListed(address: string, allowList: AllowList): boolean {
  const parsed = parseIp(address);
  if (!parsed || allowList.length === 0) return false;
  if (allowList.some((c) => inCidr(parsed, c))) return true;
  const mapped = cidr('::ffff:0:0/96');
  if (parsed.family === 6 && inCidr(parsed, mapped)) {
    const v4 = embeddedIPv4(parsed, 12);
    return allowList.some((c) => inCidr(v4, c));
  }
  return false;
}

/**
 * The guard's decision for one address: blocked unless it is globally routable unicast or inside a
 * CIDR of `allowList`. Anything that is not an IP address is blocked.
 * @default allowList []
 * @example
 * isBlockedAddress('127.0.0.1');                                   // true
 * isBlockedAddress('127.0.0.1', parseAllowList('127.0.0.1/32'));   // false
 * isBlockedAddress('127.0.0.2', parseAllowList('127.0.0.1/32'));   // true
 */
export function isBlockedAddress(address: string, allowList: AllowList = []): boolean {
  const c = classifyAddress(address);
  if (c.category === 'invalid') return true;
  if (!c.blocked) return false;
  return !isAllowListed(address, allowList);
}
