/**
 * The probe's HTTP client: every request counted against a budget and spaced by a minimum interval
 * (a burst of concurrent duplicates is sent at once, and counted too), a timeout per request, the
 * answer read up to a cap, redirects never followed. Only http: and https: URLs.
 */

export interface Exchange {
  status: number;
  /** Lower-cased names. */
  headers: Record<string, string>;
  body: string;
  /** From sending to the end of the body. */
  ms: number;
}

export interface Request {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface ClientOptions {
  /** The most requests one probe sends. @default 40 */
  maxRequests?: number;
  /** The least time between two requests (a concurrent burst excepted). @default 50 */
  minIntervalMs?: number;
  /** How long one request may take. @default 10000 */
  timeoutMs?: number;
  /** The most bytes of an answer read. @default 1 MiB */
  maxBodyBytes?: number;
}

/** A problem with the probe's input or budget, not a finding about the API. */
export class ProbeError extends Error {
  constructor(
    readonly code: 'SURETY_PROBE_URL' | 'SURETY_PROBE_BUDGET' | 'SURETY_PROBE_INPUT',
    message: string,
  ) {
    super(message);
    this.name = 'ProbeError';
  }
}

/** Parses `url`, refusing anything but http(s). */
export function httpUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ProbeError('SURETY_PROBE_URL', `not a URL: ${url}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new ProbeError(
      'SURETY_PROBE_URL',
      `refused: ${parsed.protocol} URLs (only http and https are probed)`,
    );
  return parsed;
}

export interface Client {
  send(request: Request): Promise<Exchange>;
  /** Sends `requests` at the same moment (after one interval), as concurrent duplicates. */
  burst(requests: Request[]): Promise<Exchange[]>;
  readonly sent: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function createClient(options: ClientOptions = {}): Client {
  const maxRequests = options.maxRequests ?? 40;
  const minIntervalMs = options.minIntervalMs ?? 50;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  let sent = 0;
  let last = 0;

  async function take(n: number): Promise<void> {
    if (sent + n > maxRequests)
      throw new ProbeError('SURETY_PROBE_BUDGET', `the request budget (${maxRequests}) is spent`);
    sent += n;
    const wait = last + minIntervalMs - Date.now();
    if (wait > 0) await sleep(wait);
    last = Date.now();
  }

  async function exchange(request: Request): Promise<Exchange> {
    const url = httpUrl(request.url);
    const started = performance.now();
    const response = await fetch(url, {
      method: request.method,
      headers: request.headers ?? {},
      ...(request.body !== undefined ? { body: request.body } : {}),
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    const chunks: Uint8Array[] = [];
    let size = 0;
    const reader = response.body?.getReader();
    for (let next = await reader?.read(); next && !next.done; next = await reader!.read()) {
      size += next.value.byteLength;
      if (size > maxBodyBytes) {
        await reader!.cancel();
        break;
      }
      chunks.push(next.value);
    }
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    return {
      status: response.status,
      headers,
      body: Buffer.concat(chunks).toString('utf8'),
      ms: performance.now() - started,
    };
  }

  return {
    get sent() {
      return sent;
    },
    async send(request) {
      await take(1);
      return exchange(request);
    },
    async burst(requests) {
      await take(requests.length);
      return Promise.all(requests.map(exchange));
    },
  };
}
