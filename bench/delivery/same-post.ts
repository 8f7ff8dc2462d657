// "The same POST" (issue 22): what the peers' jobs send, byte for byte what Surety's worker sends for
// an event (packages/webhooks/src/attempt.ts): the envelope from Surety's own envelopeJson, the
// signature headers from its own signSync (so both sides pay the same signing cost), then
// content-type and user-agent. same-post.test.ts checks it against a request Surety's worker sent.
// The bare POST (the ceiling's, and pg-boss's information row) sends the same body unsigned.
import { signSync } from '@surety/webhook-verify';
import { envelopeJson } from '@surety/webhooks';
import { idTimePrefix } from '@surety/webhooks/testing';

/** Surety's user-agent (attempt.ts keeps it private; the test compares it with what Surety sent). */
export const USER_AGENT = 'Surety-Webhooks/0.1';
/** The default apiVersion of Webhooks (the test compares it too). */
export const API_VERSION = '2026-11-01';

/** One event as a peer's job carries it: the envelope's fields, `data` as the published JSON text. */
export interface EventJob {
  id: string;
  type: string;
  apiVersion: string;
  createdAt: string;
  sequence: number;
  data: string;
}

/**
 * The benchmark's event `i`, shaped as Surety's: an `evt_` id of 22 characters (8 of time, 14 more),
 * `createdAt` now (the receiver's latency clock), the data the Surety phase publishes.
 */
export function eventJob(i: number, nowMs: number = Date.now()): EventJob {
  return {
    id: `${idTimePrefix('evt', nowMs)}${String(i).padStart(14, '0')}`,
    type: 'order.created',
    apiVersion: API_VERSION,
    createdAt: new Date(nowMs).toISOString(),
    sequence: i + 1,
    data: JSON.stringify({ i, pad: 'x'.repeat(200) }),
  };
}

export interface Request {
  headers: Record<string, string>;
  body: string;
}

/** What Surety's worker sends for `job`: signed with `secrets` at `nowMs`, per attempt. */
export function signedRequest(
  job: EventJob,
  secrets: readonly string[],
  nowMs: number = Date.now(),
): Request {
  const body = envelopeJson(job);
  const signed = signSync({
    id: job.id,
    body,
    secrets,
    format: 'surety',
    timestamp: Math.floor(nowMs / 1000),
  });
  return { headers: { ...signed, 'content-type': 'application/json', 'user-agent': USER_AGENT }, body };
}

/** The same body, unsigned: the bare POST. */
export function bareRequest(job: EventJob): Request {
  return { headers: { 'content-type': 'application/json' }, body: envelopeJson(job) };
}
