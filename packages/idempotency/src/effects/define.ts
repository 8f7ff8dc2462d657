import type { Tx } from '@surety/db';
import type { EffectRetryOptions } from './policy.js';

/** What an effect's `run` is called with. */
export interface EffectContext<P> {
  readonly id: string;
  readonly tenant: string;
  /** The key enqueued with the effect (the request's Idempotency-Key, or the operation's own id). */
  readonly key: string;
  /** `deriveKey(key, name)`: send it as the downstream Idempotency-Key; the same on every attempt. */
  readonly derivedKey: string;
  readonly payload: P;
  /** 1 on the first attempt; counts attempts begun, a dead worker's included. */
  readonly attempt: number;
  /** Aborted when the attempt's time is up (`attemptTimeoutMs`) or the worker stops. */
  readonly signal: AbortSignal;
}

/** What an effect ended with, for `onFailed`. */
export interface EffectFailure {
  reason: 'permanent' | 'attempts_exhausted' | 'deadline_exceeded';
  /** The last error, as stored (`code: message`). */
  error: string;
}

/** An effect: what runs outside the database, and the follow-up writes that record its outcome. */
export interface EffectDefinition<P = unknown, R = unknown> extends EffectRetryOptions {
  readonly name: string;
  /**
   * The effect itself, outside any transaction, with `ctx.derivedKey` as its downstream key: it may
   * run more than once (a retry, a worker that died before recording it), always with that key.
   * Throw to fail the attempt (`EffectFailedError`: no retry; `EffectRetryLaterError`: not before
   * its time). Its result (JSON) is stored with the effect.
   */
  readonly run: (ctx: EffectContext<P>) => Promise<R>;
  /** The follow-up write, in the one transaction that records the result (and any `publish`). */
  readonly onSucceeded?: (tx: Tx, result: R, ctx: EffectContext<P>) => Promise<void>;
  /** The write that records a give-up, in the transaction that marks the effect failed. */
  readonly onFailed?: (tx: Tx, failure: EffectFailure, ctx: EffectContext<P>) => Promise<void>;
}

/**
 * Declares an effect. Its name is stored with each enqueued effect and the worker finds the
 * definition by it, so keep it stable across deployments.
 * @example
 * const receipt = defineEffect({
 *   name: 'payment.receipt',
 *   deadlineMs: 3_600_000,
 *   run: ({ derivedKey, payload }) => mailer.send(payload.to, { idempotencyKey: derivedKey }),
 *   onSucceeded: (tx, sent, { payload }) => markReceiptSent(tx, payload.paymentId, sent.id),
 * });
 */
export function defineEffect<P, R>(definition: EffectDefinition<P, R>): EffectDefinition<P, R> {
  const { name } = definition;
  if (typeof name !== 'string' || name.length === 0 || name.length > 100)
    throw new TypeError(`an effect name is a string of 1 to 100 characters, got ${JSON.stringify(name)}`);
  return definition;
}
