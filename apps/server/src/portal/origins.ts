/**
 * The origins a tenant lets frame the portal (`frame-ancestors`, CSP Level 3). Each goes into a
 * response header verbatim, so it is checked against a grammar far narrower than CSP's
 * host-source: `scheme://host[:port]` and nothing else (no path, query, fragment, user info, no
 * quote, comma, semicolon or space that could end the directive or add one). `https` only, except
 * `http` to a loopback host (development). One wildcard form: a leading `*.` over a domain of at
 * least two labels (`https://*.example.com`); `*`, `https:`, `https://*` and `*.com` would let
 * any site frame the portal and are refused. Hosts are ASCII (IDNs as punycode), lower-cased;
 * the default port is dropped, so equal origins are equal strings and a repeat is refused.
 */

/** The most origins a tenant may list. */
export const MAX_FRAME_ANCESTORS = 10;

export type OriginCheck = { kind: 'ok'; origin: string } | { kind: 'invalid'; message: string };

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const ORIGIN = new RegExp(`^(https?)://(\\*\\.)?(${LABEL}(?:\\.${LABEL})*|\\[::1\\])(?::([0-9]{1,5}))?$`);

const isLoopback = (host: string) =>
  host === 'localhost' || host === '[::1]' || /^127(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}$/.test(host);

/** Checks and normalises one origin. */
export function checkOrigin(value: string): OriginCheck {
  const invalid = (message: string): OriginCheck => ({ kind: 'invalid', message });
  const m = ORIGIN.exec(value.toLowerCase());
  if (!m) {
    return invalid(
      'must be scheme://host[:port] (https://shop.example.com), with no path, query, user info or spaces',
    );
  }
  const scheme = m[1]!;
  const wildcard = m[2];
  const host = m[3]!;
  const portText = m[4];
  if (host.length > 253) return invalid('the host is longer than 253 characters');
  if (wildcard && (host.split('.').length < 2 || host === '[::1]' || /^[\d.]+$/.test(host))) {
    return invalid('a wildcard must cover a domain of at least two labels (https://*.example.com)');
  }
  if (scheme === 'http' && (wildcard || !isLoopback(host))) {
    return invalid('must be https (http is allowed for localhost, 127.0.0.1 and [::1] only)');
  }
  let port = '';
  if (portText !== undefined) {
    const n = Number(portText);
    if (n < 1 || n > 65535 || String(n) !== portText) return invalid('the port must be 1-65535');
    if (!(scheme === 'https' && n === 443) && !(scheme === 'http' && n === 80)) port = `:${n}`;
  }
  return { kind: 'ok', origin: `${scheme}://${wildcard ?? ''}${host}${port}` };
}

export type OriginsCheck =
  | { kind: 'ok'; origins: string[] }
  | { kind: 'invalid'; errors: { in: 'body'; path: string; message: string }[] };

/** Checks a whole list: each origin, at most MAX_FRAME_ANCESTORS, none twice once normalised. */
export function checkOrigins(values: readonly string[]): OriginsCheck {
  const errors: { in: 'body'; path: string; message: string }[] = [];
  if (values.length > MAX_FRAME_ANCESTORS) {
    errors.push({ in: 'body', path: '/frameAncestors', message: `at most ${MAX_FRAME_ANCESTORS} origins` });
  }
  const origins: string[] = [];
  values.forEach((value, i) => {
    const path = `/frameAncestors/${i}`;
    const checked = checkOrigin(value);
    if (checked.kind === 'invalid') errors.push({ in: 'body', path, message: checked.message });
    else if (origins.includes(checked.origin)) {
      errors.push({ in: 'body', path, message: `${checked.origin} is listed twice` });
    } else origins.push(checked.origin);
  });
  return errors.length > 0 ? { kind: 'invalid', errors } : { kind: 'ok', origins };
}

/** The CSP `frame-ancestors` directive's value for a list: `'none'` when it is empty. */
export const frameAncestorsValue = (origins: readonly string[]): string =>
  origins.length === 0 ? "'none'" : origins.join(' ');
