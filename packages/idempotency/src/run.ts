import type { Tx } from '@surety/db';
import { outcomeChannel } from './diagnostics.js';
import type { Idempotency } from './engine.js';
import { NoTransactionError } from './errors.js';
import { type FingerprintInput, fingerprint } from './fingerprint.js';
import { engineErrorProblem, outcomeResponse, type Problem, readKey } from './http.js';
import { MAX_KEY_LENGTH, quotedKey } from './key.js';
import type { PhasedOperation } from './phases.js';
import { recordOutcome } from './tracing.js';
import type { Outcome, StoredResponse } from './types.js';

// The request flow every adapter shares: read the key → fingerprint → execute → outcome → answer.
// The adapters only translate their framework's request into a `RunInput` and the `RunResult` back
// into its response (as @surety/conditional's evaluate.ts and its adapters do).

/** What `onOutcome` is told: the engine's outcome, or `unavailable` when the store could not be reached. */
export type AdapterOutcome = Outcome['kind'] | 'unavailable';

/** The options every adapter takes, with its framework's request type (`Req`). */
export interface AdapterOptions<Req> {
  engine: Idempotency;
  /** The tenant a request belongs to; keys are scoped by it. @default () => "" */
  tenant?: ((request: Req) => string) | undefined;
  /**
   * Turns an error the route threw into a response to store, for errors that are a final answer to
   * the operation (a decline, out of stock): return it with a 4xx status and it is committed with
   * the key (and the route's writes) and replayed. Return undefined to roll back and let the error
   * go on to the framework's error handling.
   * @default undefined (every error rolls back)
   */
  errorResponse?: ((error: unknown, request: Req) => StoredResponse | undefined) | undefined;
  /**
   * Called once per request that carried a valid key with what happened (for metrics), and with
   * `unavailable` whenever the store could not be reached.
   * @default undefined
   */
  onOutcome?: ((outcome: AdapterOutcome, request: Req) => void) | undefined;
}

/** One request, as an adapter hands it to {@link runIdempotent}. */
export interface RunInput<Req> {
  options: AdapterOptions<Req>;
  /** The framework's request, passed back to `tenant`, `errorResponse` and `onOutcome`. */
  request: Req;
  /** The raw `Idempotency-Key` header value(s). */
  header: string | readonly string[] | undefined;
  /** Whether a missing key is a 400. */
  required: boolean;
  /** What the fingerprint is made of; called only when a key was sent (it may read the body). */
  fingerprintInput: () => FingerprintInput | Promise<FingerprintInput>;
  /** Runs the route on the transaction and captures its answer. Called at most once. */
  handler: (tx: Tx, key: string | undefined) => Promise<StoredResponse>;
  /**
   * Phased mode instead of `handler` (docs/side-effects.md): the key is always required, `input`
   * (the route's own code, which validates the request) gives the operation's input, and the
   * operation's answer is sent.
   */
  phased?: PhasedRoute | undefined;
}

/** A route that runs a phased operation: the operation, and the route's code that makes its input. */
export interface PhasedRoute {
  // biome-ignore lint/suspicious/noExplicitAny: the input's type is the operation's own
  operation: PhasedOperation<any>;
  input: (key: string) => unknown;
}

/**
 * What to send: a response (fresh, replayed with its header, or rolled back) or a problem, with
 * where the problem came from (`key`: the header was refused before anything ran).
 */
export type RunResult =
  | { kind: 'response'; response: StoredResponse }
  | { kind: 'problem'; problem: Problem; source: 'key' | 'outcome' | 'store' };

const toResult = (r: StoredResponse | Problem): RunResult =>
  'code' in r ? { kind: 'problem', problem: r, source: 'outcome' } : { kind: 'response', response: r };

/**
 * Runs one request through the idempotency layer. Errors other than the store's (a route's throw
 * that `errorResponse` did not turn into an answer) are rethrown for the framework to handle.
 */
export async function runIdempotent<Req>(input: RunInput<Req>): Promise<RunResult> {
  const { options, request } = input;
  const { engine } = options;
  const { phased } = input;
  const read = readKey(input.header, input.required || phased !== undefined);
  if (read.kind === 'problem') return { kind: 'problem', problem: read.problem, source: 'key' };
  const { key } = read;
  const handler = (tx: Tx) => input.handler(tx, key);
  let tenant: string | undefined;
  try {
    // Key optional and absent: still one transaction, so the route's code is the same.
    if (key === undefined) return { kind: 'response', response: await engine.transact(handler) };
    tenant = (options.tenant ?? (() => ''))(request);
    // A key sent quoted was stored with its quotes before "k" and k became one key (issue 20):
    // such a row is still found, for its whole TTL.
    const former = quotedKey(key);
    const keyed = {
      tenant,
      key,
      fingerprint: fingerprint(await input.fingerprintInput()),
      ...(former.length <= MAX_KEY_LENGTH ? { formerKeys: [former] } : {}),
    };
    const outcome = phased
      ? await engine.phased(keyed, phased.operation, await phased.input(key))
      : await engine.execute(keyed, handler);
    recordOutcome(outcome.kind, key);
    options.onOutcome?.(outcome.kind, request);
    if (outcomeChannel.hasSubscribers) outcomeChannel.publish({ outcome: outcome.kind, tenant });
    return outcome.kind === 'executed'
      ? { kind: 'response', response: outcome.response }
      : toResult(outcomeResponse(outcome));
  } catch (error) {
    const problem = engineErrorProblem(error);
    if (!problem) throw error;
    if (key !== undefined) recordOutcome('unavailable', key);
    options.onOutcome?.('unavailable', request);
    if (outcomeChannel.hasSubscribers) outcomeChannel.publish({ outcome: 'unavailable', tenant });
    return { kind: 'problem', problem, source: 'store' };
  }
}

/**
 * The answer `errorResponse` gives for a route's error, when it is one to store (a 4xx);
 * undefined when the error must roll back.
 */
export function errorAnswer<Req>(input: {
  options: AdapterOptions<Req>;
  error: unknown;
  request: Req;
}): StoredResponse | undefined {
  const stored = input.options.errorResponse?.(input.error, input.request);
  return stored && stored.status >= 400 && stored.status < 500 ? stored : undefined;
}

/** The transaction of an idempotent route; throws NoTransactionError where the layer is not on. */
export function requireTx(tx: Tx | undefined): Tx {
  if (tx === undefined) throw new NoTransactionError();
  return tx;
}
