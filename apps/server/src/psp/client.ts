import { createFetch, type SuretyFetch } from '@surety/fetch';

// The service's client of the payment provider (issue 32). The provider's URL is operator config,
// but every byte it answers is hostile: a body is read up to a cap, under a deadline, parsed as
// JSON and checked field by field. What comes back is one of three things:
// - `succeeded` (a 2xx with a well-formed charge) or `failed` with a code (a decline, a refusal, an
//   answer that cannot be understood): definitive, recorded with the payment;
// - ProviderUnavailableError: the outcome is unknown (no answer, a 5xx after retries, a hang). The
//   money may have moved: the caller records nothing and asks again later with the same key.

export type ChargeResult =
  | { outcome: 'succeeded'; chargeId: string }
  | { outcome: 'failed'; code: string; chargeId: string | null };

/** No definitive answer from the provider: ask again later with the same idempotency key. */
export class ProviderUnavailableError extends Error {
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`the payment provider gave no definitive answer (${reason})`, options);
    this.name = 'ProviderUnavailableError';
  }
}

export interface PspClientOptions {
  /** The provider's base URL (`SURETY_PSP_URL`). */
  url: string;
  /** The total time one charge call may take, all its attempts included. @default 10000 */
  deadlineMs?: number;
  /** @default 4000 */
  attemptTimeoutMs?: number;
  /** The most bytes of an answer read; a larger one is not understood. @default 65536 */
  maxResponseBytes?: number;
}

export interface ChargeRequest {
  amount: string;
  currency: string;
  paymentMethod: string;
  /** The service's payment id, so the provider's records name it. */
  reference: string;
}

export interface PspClient {
  readonly url: string;
  charge(request: ChargeRequest, idempotencyKey: string): Promise<ChargeResult>;
  close(): Promise<void>;
}

const TOKEN = /^[\x21-\x7e]{1,255}$/;
const CODE = /^[a-z0-9_]{1,64}$/;

export function createPspClient(options: PspClientOptions): PspClient {
  const base = new URL(options.url);
  if (base.protocol !== 'http:' && base.protocol !== 'https:')
    throw new TypeError(`the payment provider URL must be http(s), got ${base.protocol}`);
  const endpoint = new URL('v1/charges', base.href.endsWith('/') ? base : new URL(`${base.href}/`)).href;
  const deadlineMs = options.deadlineMs ?? 10_000;
  const maxBytes = options.maxResponseBytes ?? 65_536;
  const fetch: SuretyFetch = createFetch({
    deadlineMs,
    attemptTimeoutMs: options.attemptTimeoutMs ?? 4_000,
    connectTimeoutMs: 2_000,
    maxAttempts: 4,
    // The key makes every retry safe, and a Stripe-like provider answers a 500 of a request that
    // charged with the stored charge on a retry; 409 is "still processing that key".
    retryStatuses: [408, 409, 429, 500, 502, 503, 504],
    baseDelayMs: 100,
    maxDelayMs: 1_000,
  });
  return {
    url: base.href,
    async charge(request, idempotencyKey) {
      // The body read is bounded by the same deadline as the attempts.
      const signal = AbortSignal.timeout(deadlineMs + 1_000);
      let res: Response;
      try {
        res = await fetch(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
          body: JSON.stringify(request),
          signal,
        });
      } catch (error) {
        throw new ProviderUnavailableError('no answer', { cause: error });
      }
      let text: string | undefined;
      try {
        text = await readCapped(res, maxBytes);
      } catch (error) {
        // Cut off mid-body or timed out reading it: the outcome is unknown.
        if (res.status < 500) throw new ProviderUnavailableError('answer cut off', { cause: error });
      }
      if (res.status >= 500 || res.status === 408 || res.status === 409 || res.status === 429)
        throw new ProviderUnavailableError(`status ${res.status}`);
      const body = text === undefined ? undefined : parse(text);
      if (res.status >= 200 && res.status < 300) {
        const charge = body as { id?: unknown; status?: unknown } | undefined;
        if (charge && typeof charge.id === 'string' && TOKEN.test(charge.id) && charge.status === 'succeeded')
          return { outcome: 'succeeded', chargeId: charge.id };
        return { outcome: 'failed', code: 'provider_invalid_response', chargeId: null };
      }
      if (res.status === 402) {
        const error = (body as { error?: { decline_code?: unknown; charge?: unknown } } | undefined)?.error;
        const code =
          typeof error?.decline_code === 'string' && CODE.test(error.decline_code)
            ? error.decline_code
            : 'card_declined';
        const chargeId = typeof error?.charge === 'string' && TOKEN.test(error.charge) ? error.charge : null;
        return { outcome: 'failed', code, chargeId };
      }
      return { outcome: 'failed', code: 'provider_rejected', chargeId: null };
    },
    close: () => fetch.close(),
  };
}

/** JSON, or undefined: NUL bytes, HTML, truncated or invalid JSON are all "not understood". */
function parse(text: string): unknown {
  if (text.includes('\u0000')) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The body as UTF-8, or undefined when it is larger than `max` (the rest is not read). */
async function readCapped(res: Response, max: number): Promise<string | undefined> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
