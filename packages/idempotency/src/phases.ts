import { isDatabaseUnavailableError, pgErrorInfo, type Tx } from '@surety/db';
import { LeaseLostError, StoreUnavailableError } from './errors.js';
import { deriveKey } from './key.js';
import { lockId } from './lock.js';
import { type Acquired, acquire, asJson } from './phase-acquire.js';
import type { PhaseStatements } from './phase-statements.js';
import { giveBackOrRetry } from './release-later.js';
import { encodeBody } from './stored-body.js';
import { endPhaseSpan, phaseSpan } from './tracing.js';
import type { EngineContext, IdempotencyRequest, Outcome, StoredResponse } from './types.js';

// Phased operations (issue 32; brandur's "atomic phases" and "recovery points"): a keyed request that
// must call an outside system runs as named phases on a lease-mode key. A local phase commits its
// writes with the key's recovery point in one transaction; an external phase runs outside any
// transaction with a key derived from the request's, and its result is committed with the next
// local phase (or the give-back, when the run stops before one). A retry with the same key and
// fingerprint, or the completer, takes the key over (at once after a failed run, after the lease
// after a crash) and resumes: committed phases return their recorded results without running
// again; an interrupted external call repeats with the same derived key, so the outside system
// answers it as the same request.

/** What a phased operation runs its steps with. */
export interface Flow {
  readonly tenant: string;
  /** The request's Idempotency-Key. */
  readonly key: string;
  /** The last phase committed before this run began (undefined on a first run). */
  readonly resumedFrom: string | undefined;
  /** Whether the phase `name` has run in this run (an external one's result may await its record) or committed in an earlier one. */
  done(name: string): boolean;
  /**
   * Runs `run` in its own transaction, committed together with the phase's result and the key's
   * recovery point; a phase committed earlier returns its recorded result and does not run. The
   * result must be JSON (what a resumed run gets is its JSON; this run gets the same).
   */
  local<T>(name: string, run: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * Calls an outside system outside any transaction, with `deriveKey(key, name)` to send as its
   * idempotency key. The call's result (JSON) commits with the next local phase (or, when the run
   * stops before one, with the key's give-back), as the recovery point. A phase committed earlier
   * returns its recorded result without calling again; a call interrupted before its result
   * committed is repeated with the same derived key. Throw to leave the phase uncommitted (the
   * outcome is unknown: a retry or the completer repeats the call).
   */
  external<T>(name: string, call: (derivedKey: string) => Promise<T>): Promise<T>;
}

/** A named phased operation: what a request and the completer run for a key. */
export interface PhasedOperation<I = unknown> {
  readonly name: string;
  /** Runs the phases and answers; called again with the recorded phases on a resume. */
  readonly run: (flow: Flow, input: I) => Promise<StoredResponse>;
}

/**
 * Declares a phased operation. Its name is stored with each key it runs for, and the completer
 * finds the operation by it, so keep it stable across deployments.
 * @example
 * const createPayment = phasedOperation('payments.create', async (flow, input: { cents: number }) => {
 *   const { id } = await flow.local('created', (tx) => insertProcessing(tx, input));
 *   const charge = await flow.external('charge', (k) => psp.charge(input.cents, { idempotencyKey: k }));
 *   const payment = await flow.local('recorded', (tx) => recordCharge(tx, id, charge));
 *   return { status: 201, headers: { 'content-type': 'application/json' }, body: JSON.stringify(payment) };
 * });
 */
export function phasedOperation<I>(
  name: string,
  run: (flow: Flow, input: I) => Promise<StoredResponse>,
): PhasedOperation<I> {
  checkName('operation', name);
  return { name, run };
}

function checkName(what: string, name: string): void {
  if (typeof name !== 'string' || name.length === 0 || name.length > 100)
    throw new TypeError(`a ${what} name is a string of 1 to 100 characters, got ${JSON.stringify(name)}`);
}

/**
 * Acquires the key for the operation and runs it, resuming from the recorded phases. A run that
 * throws or answers a non-final status after a phase committed keeps the key in progress with its
 * phases and lets its lease lapse at once, so a retry resumes it (and the completer, after its
 * grace); one that committed nothing releases the key.
 */
export async function runPhased<I>(
  ctx: EngineContext,
  pst: PhaseStatements,
  request: IdempotencyRequest,
  operation: PhasedOperation<I>,
  input: I,
): Promise<Outcome> {
  const { tenant, key } = request;
  const lock = lockId(tenant, key);
  let acquired: Acquired | Outcome;
  try {
    acquired = await acquire(ctx, pst, request, operation.name, input, lock);
  } catch (error) {
    if (isDatabaseUnavailableError(error)) throw new StoreUnavailableError({ cause: error });
    throw error;
  }
  if ('kind' in acquired) return acquired;
  const { token } = acquired;
  const state = acquired.state;
  const resumedFrom = acquired.recoveryPoint;
  let started = Object.keys(state).length > 0;
  const seen = new Set<string>();
  const fence = (rowCount: number) => {
    if (rowCount === 0) throw new LeaseLostError();
  };
  const leaseUntil = () => new Date(ctx.now() + ctx.leaseMs).toISOString();
  // Results of external phases not committed yet: they travel with the next local phase's record
  // (rocket-rides-atomic's order: the charge's id is saved in the atomic phase after the call), or
  // with the give-back when the run stops before one. Until then a resume repeats the call, with the
  // same derived key, as it would after a crash during the call.
  const pending = new Map<string, string>();
  /** The record's parameters for `results` (name → JSON text), the last of them the recovery point. */
  const recordParams = (results: [string, string][]) => [
    tenant,
    key,
    token,
    lock,
    results.at(-1)![0],
    `{${results.map(([name, text]) => `${JSON.stringify(name)}:${text}`).join(',')}}`,
  ];
  // Set by the renewer when its renewal matched nothing: another owner took the key over, and no
  // further phase may start (a record would be fenced off anyway, but not before an external call).
  let lost = false;
  const once = (name: string) => {
    checkName('phase', name);
    if (lost) throw new LeaseLostError();
    if (seen.has(name)) throw new TypeError(`phase ${JSON.stringify(name)} runs twice in one operation`);
    seen.add(name);
  };
  const flow: Flow = {
    tenant,
    key,
    resumedFrom,
    done: (name) => Object.hasOwn(state, name),
    async local<T>(name: string, run: (tx: Tx) => Promise<T>): Promise<T> {
      once(name);
      if (Object.hasOwn(state, name)) return state[name] as T;
      const span = phaseSpan(name, 'local');
      let json: string;
      let committing = false;
      try {
        json = await ctx.sql.transaction(async (tx) => {
          const text = asJson(await run(tx));
          const params = recordParams([...pending, [name, text]]);
          try {
            // With COMMIT, in its round trip (phase-statements.ts: a lost lease divides by zero).
            tx.atCommit({ statement: pst.recordAtCommit, params });
            committing = true;
          } catch {
            // The phase's code sent its own statement with COMMIT: the record goes before it.
            fence((await tx.query(pst.record, params)).rowCount);
          }
          return text;
        });
        endPhaseSpan(span);
      } catch (error) {
        endPhaseSpan(span, error);
        // 22012 at COMMIT is the record's lost lease, or a deferred trigger of the phase's own
        // tables: the store tells which (unreachable: the error as it is, and the give-back).
        if (committing && pgErrorInfo(error)?.code === '22012') {
          const owned = await ctx.sql.query(pst.owned, [tenant, key, token, lock]).catch(() => undefined);
          if (owned?.rows.length === 0) throw new LeaseLostError();
        }
        throw error;
      }
      // Committed: from here the key is kept for a resume (a rolled-back first phase left nothing).
      started = true;
      pending.clear();
      state[name] = JSON.parse(json);
      return state[name] as T;
    },
    async external<T>(name: string, call: (derivedKey: string) => Promise<T>): Promise<T> {
      once(name);
      if (Object.hasOwn(state, name)) return state[name] as T;
      // From here a retry must find the key: the call may take effect whatever happens next.
      if (!started) {
        started = true;
        fence((await ctx.sql.query(pst.record, recordParams([[`${name}:started`, 'true']]))).rowCount);
      }
      const span = phaseSpan(name, 'external');
      let text: string;
      try {
        text = asJson(await call(deriveKey(key, name)));
        endPhaseSpan(span);
      } catch (error) {
        endPhaseSpan(span, error);
        throw error;
      }
      pending.set(name, text);
      state[name] = JSON.parse(text);
      return state[name] as T;
    },
  };
  /**
   * Gives the key back, with the results of external phases no local phase committed: released when
   * the store holds no phase for it, else its lease lapses now with its phases kept (a retry resumes
   * at once). Decided by the store, not by what this run saw: a phase whose COMMIT landed with its
   * answer lost (a failover) is there though the run never learnt it, and releasing the key would
   * run that phase again on the retry (a second payment).
   */
  const giveBack = async () => {
    if (pending.size > 0) {
      try {
        if ((await ctx.sql.query(pst.record, recordParams([...pending]))).rowCount === 0) return;
        pending.clear();
      } catch (error) {
        // Unreachable: retried (giveBackOrRetry). Refused (a result jsonb cannot hold, as \u0000):
        // left unrecorded, so a resume repeats the call with the same derived key; and the key is
        // still given back, or every retry would be in flight until the lease lapsed.
        if (isDatabaseUnavailableError(error)) throw error;
      }
    }
    await ctx.sql.query(pst.abandon, [tenant, key, token, lock, new Date(ctx.now()).toISOString()]);
  };
  const renewer = setInterval(
    () => {
      ctx.sql.query(pst.pause, [tenant, key, token, lock, leaseUntil()]).then(
        (renewed) => {
          if (renewed.rowCount === 0) lost = true;
        },
        () => {},
      );
    },
    Math.max(50, Math.floor(ctx.leaseMs / 3)),
  );
  renewer.unref();
  try {
    const response = await operation.run(flow, input);
    clearInterval(renewer);
    if (!ctx.final(response)) {
      await giveBack();
      return { kind: 'executed', response, stored: false };
    }
    const encoded = encodeBody(response.body, ctx.bodyLimits);
    const done = await ctx.sql.query(ctx.st.leaseComplete, [
      tenant,
      key,
      token,
      response.status,
      JSON.stringify(response.headers),
      encoded.text,
      lock,
      encoded.gzip,
      encoded.column,
    ]);
    fence(done.rowCount);
    ctx.stored(tenant, encoded);
    return { kind: 'executed', response, stored: true };
  } catch (error) {
    clearInterval(renewer);
    if (!(error instanceof LeaseLostError)) await giveBackOrRetry(ctx, giveBack, ctx.now() + ctx.leaseMs);
    if (isDatabaseUnavailableError(error)) throw new StoreUnavailableError({ cause: error });
    throw error;
  }
}
