// One delivery attempt: build the envelope, sign it with the endpoint's live secrets, POST it. The
// result is classified elsewhere (classify.ts); nothing here decides what it means.
import { signSync } from '@surety/webhook-verify';
import type { AttemptAuth } from '../auth/index.js';
import type { PublishFn } from '../destinations/index.js';
import { envelopeJson } from '../envelope.js';
import type { Claimed } from '../sql/claim.js';
import type { GuardedResponse } from '../ssrf/index.js';
import type { AttemptResult, Classification } from './classify.js';
import type { Completion } from './outcome-writer.js';

/** One HTTP attempt; the default goes through the SSRF guard. Throws errors with a `code`. */
export type PostFn = (
  url: string,
  request: {
    headers: Record<string, string>;
    body: string;
    timeoutMs: number;
    /**
     * The endpoint's receiver authentication (auth/), when it has one: the default POST adds it. It
     * holds secrets: a custom PostFn must not log it.
     */
    auth?: AttemptAuth;
  },
) => Promise<Pick<GuardedResponse, 'status' | 'headers' | 'bodyExcerpt'>>;

const USER_AGENT = 'Surety-Webhooks/0.1';

/** What was sent and answered: the result to classify, and the text recorded with the attempt. */
export interface Sent {
  result: AttemptResult;
  /** The receiver's answer, capped and made storable where outcomes are recorded. */
  excerpt: string | null;
  errorMessage: string | null;
}

/** Sends one claimed delivery; `startedMs` is the clock's value at the start (the signature's time). */
export async function sendAttempt(input: {
  row: Claimed;
  post: PostFn;
  /** A broker endpoint's publish (destinations/); undefined: every endpoint is a webhook. */
  publish?: PublishFn | undefined;
  timeoutMs: number;
  startedMs: number;
}): Promise<Sent> {
  const { row, startedMs } = input;
  if (row.url === null || row.type === null) {
    return {
      result: { kind: 'not_sent', code: row.url === null ? 'endpoint_deleted' : 'event_deleted' },
      excerpt: null,
      errorMessage: null,
    };
  }
  if (row.endpoint_status !== 'enabled') {
    return { result: { kind: 'not_sent', code: 'endpoint_disabled' }, excerpt: null, errorMessage: null };
  }
  const body = envelopeJson({
    id: row.event_id,
    type: row.type,
    apiVersion: row.api_version,
    createdAt: row.created_at,
    sequence: row.sequence,
    data: row.data,
  });
  try {
    const secrets = liveSecrets(row.secrets, startedMs);
    const signed = signSync({
      id: row.event_id,
      body,
      secrets,
      format: row.format,
      timestamp: Math.floor(startedMs / 1000),
    });
    if (row.kind !== 'webhook') {
      // destinations/: the same envelope and signature, published; success is the broker's confirmation.
      if (!input.publish)
        throw Object.assign(new Error(`no publisher for ${row.kind} endpoints`), { code: 'missing_peer' });
      await input.publish(
        row,
        {
          id: row.event_id,
          type: row.type,
          body,
          headers: { ...row.endpoint_headers, ...signed, 'content-type': 'application/json' },
        },
        input.timeoutMs,
      );
      return { result: { kind: 'confirmed' }, excerpt: null, errorMessage: null };
    }
    const request: Parameters<PostFn>[1] = {
      // The endpoint's own headers first: none may name what follows (headers.ts refuses them).
      headers: {
        ...row.endpoint_headers,
        ...signed,
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
      },
      body,
      timeoutMs: input.timeoutMs,
    };
    // auth/: the row's credentials as claimed, so a rotation does not touch an attempt in flight.
    if (row.endpoint_auth)
      request.auth = { endpoint: `${row.tenant}/${row.endpoint_id}`, config: row.endpoint_auth };
    const res = await input.post(row.url, request);
    return {
      result: { kind: 'response', status: res.status, retryAfter: res.headers['retry-after'] },
      excerpt: res.bodyExcerpt,
      errorMessage: null,
    };
  } catch (error) {
    const e = error as { code?: unknown; message?: string };
    return {
      result: { kind: 'error', code: typeof e.code === 'string' ? e.code : 'attempt_failed' },
      excerpt: null,
      errorMessage: e.message ?? String(error),
    };
  }
}

/** The secrets not expired at `nowMs`, in their order (one loop: this runs for every attempt). */
function liveSecrets(entries: Claimed['secrets'], nowMs: number): string[] {
  const out: string[] = [];
  if (entries === null) return out;
  for (const s of entries) if (s.expiresAt === null || Date.parse(s.expiresAt) > nowMs) out.push(s.secret);
  return out;
}

/** The attempt's record, from what was sent and how it was classified. */
export function completionOf(input: {
  row: Claimed;
  sent: Sent;
  classification: Classification;
  startedMs: number;
  durationMs: number;
}): Completion {
  const { row, sent, classification: c } = input;
  return {
    id: row.id,
    tenant: row.tenant,
    endpointId: row.endpoint_id,
    outcome: c.kind,
    nextAt: c.kind === 'retry' || c.kind === 'throttled' ? new Date(c.nextAtMs).toISOString() : null,
    status: c.status,
    errorCode: c.errorCode,
    errorMessage: sent.errorMessage,
    excerpt: sent.excerpt, // capped and made storable where outcomes are recorded
    attempt: row.attempts,
    startedAt: new Date(input.startedMs).toISOString(),
    durationMs: input.durationMs,
    gone: c.kind === 'failed' && c.gone,
    pauseUntil: c.kind === 'throttled' && c.retryAfterMs !== null ? new Date(c.nextAtMs).toISOString() : null,
    eventId: row.event_id,
    eventType: row.type,
  };
}

/** A claimed delivery put back without counting an attempt, due `waitMs` after `nowMs`. */
export function deferral(row: Claimed, nowMs: number, waitMs: number): Completion {
  return {
    id: row.id,
    tenant: row.tenant,
    endpointId: row.endpoint_id,
    outcome: 'defer',
    nextAt: new Date(nowMs + waitMs).toISOString(),
    status: null,
    errorCode: null,
    errorMessage: null,
    excerpt: null,
    attempt: row.attempts,
    startedAt: new Date(nowMs).toISOString(),
    durationMs: 0,
    gone: false,
    pauseUntil: null,
    eventId: row.event_id,
    eventType: row.type,
  };
}
