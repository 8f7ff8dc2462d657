// Endpoint URL checks that need no network: run when an endpoint is created or updated, and again
// before every delivery (the stored URL may predate a stricter configuration). Host names are not
// resolved here — a name's answers change, so they are checked at every delivery instead.
import { type AddressClassification, type AllowList, classifyAddress, isAllowListed } from './classify.js';
import { stripBrackets } from './ip.js';

/** Stable reasons a webhook URL is refused. */
export type UrlRejectionReason =
  | 'invalid_url'
  | 'url_too_long'
  | 'unsupported_protocol'
  | 'https_required'
  | 'credentials_in_url'
  | 'fragment_in_url'
  | 'missing_host'
  | 'invalid_port'
  | 'blocked_address';

/** Options of {@link validateWebhookUrl}. */
export interface UrlValidationOptions {
  /**
   * Accept `http:` URLs. For development and tests only: webhook payloads and signatures travel in
   * clear text otherwise.
   * @default false
   */
  allowHttp?: boolean;
  /**
   * Longest accepted URL, in characters.
   * @default 2048
   */
  maxLength?: number;
  /**
   * CIDRs that may be targeted although they are special (see `parseAllowList`).
   * @default []
   */
  allowList?: AllowList;
}

/** The result of {@link validateWebhookUrl}, tagged `kind` (`valid` or `invalid`; `ok` says the same). */
export type UrlValidation =
  | {
      readonly kind: 'valid';
      readonly ok: true;
      /** The URL as WHATWG parsing normalised it (`http://2130706433/` becomes `http://127.0.0.1/`). */
      readonly url: URL;
      /** Set when the host is an IP literal: its classification. */
      readonly address?: AddressClassification;
    }
  | {
      readonly kind: 'invalid';
      readonly ok: false;
      readonly reason: UrlRejectionReason;
      readonly message: string;
      readonly address?: AddressClassification;
    };

const DEFAULT_MAX_LENGTH = 2048;

const reject = (
  reason: UrlRejectionReason,
  message: string,
  address?: AddressClassification,
): UrlValidation =>
  address
    ? { kind: 'invalid', ok: false, reason, message, address }
    : { kind: 'invalid', ok: false, reason, message };

/**
 * Checks a webhook URL without touching the network: http(s) only, https unless `allowHttp`, no
 * `user:password@`, no `#fragment`, a host, a port in 1-65535, at most `maxLength` characters, and an
 * IP-literal host outside every blocked range. Relies on WHATWG `new URL()` to normalise IPv4
 * spellings (decimal `2130706433`, octal `0177.0.0.1`, hex `0x7f.1`, short `127.1`) to dotted quads and
 * IPv6 to canonical text, then classifies the result. `localhost` and `*.localhost` count as
 * 127.0.0.1 (RFC 6761 6.3 reserves them for loopback).
 * @default options { allowHttp: false, maxLength: 2048, allowList: [] }
 * @example
 * const v = validateWebhookUrl(body.url, { allowList: allowListFromEnv() });
 * if (!v.ok) return problem(422, v.reason, v.message);
 */
export function validateWebhookUrl(input: string | URL, options: UrlValidationOptions = {}): UrlValidation {
  const allowHttp = options.allowHttp ?? false;
  const maxLength = options.maxLength ?? DEFAULT_MAX_LENGTH;
  const allowList = options.allowList ?? [];
  const text = typeof input === 'string' ? input : input.href;
  if (text.length > maxLength) return reject('url_too_long', `URL is longer than ${maxLength} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return reject('invalid_url', 'not an absolute URL');
  }
  if (url.href.length > maxLength)
    return reject('url_too_long', `URL is longer than ${maxLength} characters`);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return reject('unsupported_protocol', `${url.protocol} URLs are not allowed; use https:`);
  }
  if (url.protocol === 'http:' && !allowHttp) return reject('https_required', 'webhook URLs must use https:');
  if (url.username !== '' || url.password !== '') {
    return reject(
      'credentials_in_url',
      'URLs with user:password@ are not allowed; use the signature instead',
    );
  }
  // Never sent on the wire, so it can only confuse whoever reads the stored URL.
  if (url.hash !== '' || text.includes('#'))
    return reject('fragment_in_url', 'URLs with a #fragment are not allowed');
  if (url.hostname === '') return reject('missing_host', 'URL has no host');
  if (url.port === '0') return reject('invalid_port', 'port 0 is not allowed');
  const address = classifyLiteralHost(url.hostname);
  if (address?.blocked && !isAllowListed(address.address, allowList)) {
    return reject(
      'blocked_address',
      `${url.hostname} is a ${address.category} address, which webhooks may not target`,
      address,
    );
  }
  return address ? { kind: 'valid', ok: true, url, address } : { kind: 'valid', ok: true, url };
}

/**
 * The classification of a URL host that is an IP literal (or localhost); undefined for a DNS name.
 * @example
 * classifyLiteralHost('[::1]')?.category; // 'loopback'
 */
export function classifyLiteralHost(hostname: string): AddressClassification | undefined {
  const host = stripBrackets(hostname).toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return classifyAddress('127.0.0.1');
  const c = classifyAddress(host);
  return c.category === 'invalid' ? undefined : c;
}
