import type { AttemptErrorCode } from './classify.js';
import type { UnstorableOutcome } from './outcome-types.js';

/** `throttled`: a 429/503 under adaptive throttling, recorded but not counted against the delivery. */
export type AttemptOutcome = 'delivered' | 'retry' | 'failed' | 'throttled';

export interface AttemptEvent {
  deliveryId: string;
  eventId: string;
  endpointId: string;
  tenant: string;
  attempt: number;
  outcome: AttemptOutcome;
  status: number | null;
  errorCode: AttemptErrorCode | null;
  durationMs: number;
  /** Milliseconds from the event's creation to this attempt's end. */
  latencyMs: number;
}

/** Events of a worker, `noun:verb`. */
export interface WorkerEventMap {
  'attempt:finished': [AttemptEvent];
  'endpoint:disabled': [{ tenant: string; endpointId: string; reason: string }];
  /** An endpoint's breaker opened: `held` deliveries were moved behind its probe. */
  'circuit:opened': [{ tenant: string; endpointId: string; held: number }];
  /** Its probe failed: the next is later; `held` deliveries moved again (0 until the hold horizon nears). */
  'circuit:probe_failed': [{ tenant: string; endpointId: string; held: number }];
  /** A probe succeeded: the breaker closed and `released` held deliveries are due. */
  'circuit:closed': [{ tenant: string; endpointId: string; released: number }];
  /**
   * Adaptive throttling lowered an endpoint's in-flight cap and rate (`rate` null: the cap only),
   * on a 429/503 (`signal: 'throttled'`) or its latency climbing (`'latency'`).
   */
  'throttle:decreased': [
    { tenant: string; endpointId: string; signal: 'throttled' | 'latency'; cap: number; rate: number | null },
  ];
  /** An operational event was published (operational.ts), after its transaction committed. */
  'operational:published': [{ tenant: string; type: string; endpointId: string }];
  'worker:error': [Error];
  /**
   * An outcome PostgreSQL could not store as it was (a NUL in a receiver's answer, a row a constraint
   * refuses), and how it was stored instead. Anything but `replaced` is also a `worker:error`, once.
   */
  'outcome:unstorable': [UnstorableOutcome];
  /** Outcomes cannot be written (the database is away): the worker claims nothing until they are. */
  'outcomes:blocked': [{ buffered: number; error: Error }];
  /** Outcomes are written again after `blockedMs`; claims resume. */
  'outcomes:resumed': [{ buffered: number; blockedMs: number }];
}
