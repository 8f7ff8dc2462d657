// Resolve a delivery target once and decide on every answer. The address returned here is the one
// the socket connects to: there is no second lookup for a rebinding DNS server to answer differently.
import { lookup } from 'node:dns/promises';
import { type AllowList, classifyAddress, isAllowListed } from './classify.js';
import { type BlockedAddress, DnsError, SsrfBlockedError } from './errors.js';
import { formatIp, parseIp, stripBrackets } from './ip.js';

/** One answer of a {@link Resolver}. */
export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Resolves a host name to its addresses. Inject one in tests; never let a test reach real DNS. */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/**
 * The default resolver: `dns.promises.lookup(hostname, { all: true })`, the same getaddrinfo path
 * (including /etc/hosts) that `net.connect` would take, in the system's order.
 * @example
 * await systemResolver('example.com'); // [{ address: '93.184.215.14', family: 4 }, ...]
 */
export const systemResolver: Resolver = async (hostname) => {
  const answers = await lookup(hostname, { all: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** The decision taken for one delivery target, reported to `onCheck` observers. */
export interface TargetCheck {
  readonly hostname: string;
  /** Every address the name resolved to (one for an IP literal). */
  readonly addresses: readonly string[];
  /** The address the connection is made to; undefined when blocked. */
  readonly address?: string;
  readonly family?: 4 | 6;
  readonly blocked: readonly BlockedAddress[];
}

/** Options of {@link resolveTarget}. */
export interface ResolveTargetOptions {
  /** @default systemResolver */
  resolver?: Resolver;
  /** @default [] */
  allowList?: AllowList;
  /**
   * Give up on DNS after this long (`dns_failed`).
   * @default 5000
   */
  timeoutMs?: number;
}

/**
 * Resolves `hostname` (a name, or an IP literal with or without brackets) and refuses it if ANY
 * answer is blocked, not only the first: a name that mixes a public and a private answer is an
 * attack or a misconfiguration, and happy-eyeballs or a retry could otherwise reach the private one.
 * Returns the first answer, which is the address to connect to.
 * Throws {@link SsrfBlockedError} (`ssrf_blocked`) or {@link DnsError} (`dns_failed`).
 * @default options { resolver: systemResolver, allowList: [], timeoutMs: 5000 }
 * @example
 * const target = await resolveTarget('hooks.example.com', { allowList });
 * // connect to target.address, with TLS servername 'hooks.example.com'
 */
export async function resolveTarget(
  hostname: string,
  options: ResolveTargetOptions = {},
): Promise<TargetCheck & { address: string; family: 4 | 6 }> {
  const resolver = options.resolver ?? systemResolver;
  const allowList = options.allowList ?? [];
  const timeoutMs = options.timeoutMs ?? 5000;
  const host = stripBrackets(hostname);
  const literal = parseIp(host);
  const answers: readonly ResolvedAddress[] = literal
    ? [{ address: formatIp(literal), family: literal.family }]
    : await withTimeout(resolver(host), timeoutMs, host);
  if (answers.length === 0) throw new DnsError(host, `${host} did not resolve to any address`);
  const blocked: BlockedAddress[] = [];
  const classified = answers.map((a) => classifyAddress(a.address));
  for (const c of classified) {
    // `invalid` (the resolver returned something that is not an IP) is blocked too: fail closed.
    if (c.blocked && !isAllowListed(c.address, allowList))
      blocked.push({ address: c.address, category: c.category });
  }
  if (blocked.length > 0) {
    throw new SsrfBlockedError(
      host,
      blocked,
      classified.map((c) => c.address),
    );
  }
  const first = classified[0]!;
  return {
    hostname: host,
    addresses: classified.map((c) => c.address),
    address: first.address,
    family: first.family!,
    blocked,
  };
}

async function withTimeout<T>(promise: Promise<T>, ms: number, host: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new DnsError(host, `DNS lookup for ${host} timed out after ${ms} ms`)),
      ms,
    );
  });
  try {
    return await Promise.race([
      promise.catch((cause: unknown) => {
        throw new DnsError(host, `DNS lookup for ${host} failed: ${(cause as Error)?.message ?? cause}`, {
          cause,
        });
      }),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
