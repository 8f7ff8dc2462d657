// Records a worker's attempt outcomes in batches (one `complete` statement per batch), whatever the
// receivers answered and whatever the database does:
// - text from outside (excerpt, error message, error code) is made storable once, here (toPgText);
// - a batch the database refuses for a row's data (SQLSTATE class 22 data exception, 23 integrity
//   constraint) is split in halves until every other outcome is recorded; the row that still fails
//   alone is recorded with what can be stored (no excerpt or message), or else as a failed delivery
//   with no attempt row (`attempt_unrecorded`): isolated, reported once, never retried;
// - any other failure (the database unreachable, a table it cannot write) keeps every outcome, backs
//   off and says it is `blocked`: the worker claims nothing until a write succeeds.
import { isConnectionError, type Queryable, sqlState } from '@surety/db';
import { WebhookError } from '../errors.js';
import { newId } from '../ids.js';
import { toPgText } from '../pg-text.js';
import { completeDeliveries } from '../sql/complete.js';
import type { Completion, OutcomeWriterOptions, UnstorableHandling } from './outcome-types.js';

export type {
  Completion,
  OutcomeWriterOptions,
  UnstorableHandling,
  UnstorableOutcome,
} from './outcome-types.js';

/** Longest excerpt kept, in UTF-16 code units. */
export const EXCERPT_LENGTH = 1024;
const MESSAGE_LENGTH = 500;
const CODE_LENGTH = 100;
/** Rows per statement: bounds one statement's parameters and its failure's blast radius. */
const MAX_ROWS = 500;
/** Attempts at a write that keeps failing during shutdown before it is given up. */
const STOP_TRIES = 5;

/** A refusal caused by a row's values: splitting the batch can isolate it. */
function isRowError(error: unknown): boolean {
  const state = sqlState(error);
  return state !== undefined && /^2[23]/.test(state) && !isConnectionError(error);
}

type Mode = 'full' | 'no_text' | 'delivery_only';

/**
 * An outcome as kept until it is recorded, with its attempt's id made once: a batch written again
 * after its answer was lost (the statement committed, the connection dropped) finds its attempts
 * recorded under these ids and records none twice.
 */
type Kept = Completion & {
  attemptId: string;
  /** A write of it failed for another reason than its data: it may be recorded already. */
  again?: boolean;
};

/** Buffers a worker's outcomes and writes them; see the file's header. */
export class OutcomeWriter {
  readonly #options: OutcomeWriterOptions;
  #buffer: Kept[] = [];
  #writing = 0;
  #flushing: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  #blockedAt: number | undefined;

  constructor(options: OutcomeWriterOptions) {
    this.#options = options;
  }

  /** Outcomes not yet recorded (waiting, or in the statement being written). */
  get size(): number {
    return this.#buffer.length + this.#writing;
  }

  /** True from a write that failed for want of the database until one succeeds. */
  get blocked(): boolean {
    return this.#blockedAt !== undefined;
  }

  /** Takes an outcome (its text made storable here) and schedules its write. */
  add(c: Completion): void {
    const excerpt = clean(c.excerpt, EXCERPT_LENGTH);
    const errorMessage = clean(c.errorMessage, MESSAGE_LENGTH);
    const errorCode = clean(c.errorCode, CODE_LENGTH);
    this.#buffer.push({
      ...c,
      excerpt: excerpt.text,
      errorMessage: errorMessage.text,
      errorCode: errorCode.text,
      attemptId: newId('att', Date.parse(c.startedAt)),
    });
    if (excerpt.replaced || errorMessage.replaced || errorCode.replaced) this.#unstorable(c, 'replaced');
    // While blocked, the flush that is retrying takes it with the rest.
    if (this.#blockedAt !== undefined) return;
    if (this.#buffer.length >= this.#options.batchSize) void this.flush();
    else this.#timer ??= setTimeout(() => void this.flush(), this.#options.flushIntervalMs);
  }

  /** Writes everything buffered; serialised. Resolves when done, or given up while stopping. */
  flush(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    this.#flushing = this.#flushing.then(() => this.#drain());
    return this.#flushing;
  }

  async #drain(): Promise<void> {
    for (let tries = 0; this.#buffer.length > 0; ) {
      const batch = this.#buffer.splice(0, MAX_ROWS);
      this.#writing = batch.length;
      const left = await this.#settle(batch);
      this.#writing = 0;
      if (!left) {
        tries = 0;
        if (this.#blockedAt !== undefined) {
          const blockedMs = Math.round(performance.now() - this.#blockedAt);
          this.#blockedAt = undefined;
          this.#options.on.resumed({ buffered: this.size, blockedMs });
        }
        continue;
      }
      // Not the rows' fault: keep every outcome, in order, and try again later. The worker claims
      // nothing meanwhile, so what waits here is bounded by what it had claimed.
      // The failed write may have committed (its answer lost): the next one skips what it recorded.
      for (const row of left.rows) row.again = true;
      this.#buffer.unshift(...left.rows);
      if (this.#blockedAt === undefined) {
        this.#blockedAt = performance.now();
        this.#options.on.blocked({ buffered: this.size, error: left.error });
      }
      this.#options.on.error(left.error);
      tries++;
      // Shutting down with the database away: give up; the leases bring these deliveries back.
      if (this.#options.stopping() && tries >= STOP_TRIES) break;
      await new Promise((r) => setTimeout(r, Math.min(5000, 50 * 2 ** (tries - 1))));
    }
    this.#options.on.settled();
  }

  /**
   * Records `batch`, splitting it around rows the database refuses. Returns the rows left unrecorded
   * (in order) when a write failed for another reason.
   */
  async #settle(batch: Kept[]): Promise<{ rows: Kept[]; error: Error } | undefined> {
    // Parts still to write; the next one is at the end. A batch of n with one bad row costs about
    // 2·log2(n) statements more than a good one.
    const todo = [batch];
    while (todo.length > 0) {
      const part = todo.pop()!;
      let error = await this.#write(part, 'full');
      if (error === undefined) continue;
      if (isRowError(error)) {
        if (part.length > 1) {
          const half = part.length >> 1;
          todo.push(part.slice(half), part.slice(0, half));
          continue;
        }
        error = await this.#isolate(part[0]!, error);
        if (error === undefined) continue;
      }
      return { rows: [part, ...todo.reverse()].flat(), error };
    }
    return undefined;
  }

  /**
   * One outcome the database refuses: stored with less, step by step. Returns an error only when a
   * step failed for another reason than the row (the caller keeps the outcome and retries).
   */
  async #isolate(c: Kept, refusal: Error): Promise<Error | undefined> {
    let reason = refusal;
    if (c.outcome !== 'defer' && (c.excerpt !== null || c.errorMessage !== null)) {
      const error = await this.#write([c], 'no_text');
      if (error === undefined) return this.#unstorable(c, 'text_dropped', reason);
      if (!isRowError(error)) return error;
      reason = error;
    }
    const recorded: Kept = {
      ...c,
      // A throttled attempt that cannot be recorded is handed back (it spent nothing either way).
      outcome: c.outcome === 'delivered' ? 'delivered' : c.outcome === 'throttled' ? 'defer' : 'failed',
      nextAt: null,
      errorCode: 'attempt_unrecorded',
    };
    const error = await this.#write([recorded], 'delivery_only');
    if (error === undefined) return this.#unstorable(c, 'attempt_dropped', reason);
    if (!isRowError(error)) return error;
    return this.#unstorable(c, 'lost', error);
  }

  /** Reports an outcome stored with less than it had; logged (worker:error) once when not `replaced`. */
  #unstorable(c: Completion, handled: UnstorableHandling, cause?: Error): undefined {
    this.#options.on.unstorable({
      deliveryId: c.id,
      tenant: c.tenant,
      endpointId: c.endpointId,
      attempt: c.attempt,
      handled,
    });
    if (cause) {
      const what = {
        replaced: 'stored with U+FFFD replacements',
        text_dropped: 'stored without its response excerpt and error message',
        attempt_dropped: 'not stored: the delivery is recorded with last_error attempt_unrecorded',
        lost: 'not stored at all: the delivery comes back when its lease ends',
      }[handled];
      this.#options.on.error(
        new WebhookError(
          'SURETY_OUTCOME_UNSTORABLE',
          `the outcome of delivery ${c.id} (tenant ${c.tenant}, attempt ${c.attempt}) was refused by the database (${sqlState(cause) ?? 'no SQLSTATE'}: ${cause.message}); ${what}`,
          { cause },
        ),
      );
    }
    return undefined;
  }

  /** One `complete` statement; resolves with its error instead of throwing. */
  async #write(batch: Kept[], mode: Mode): Promise<Error | undefined> {
    const now = new Date(this.#options.now()).toISOString();
    const attempts = mode === 'delivery_only' ? [] : batch.filter((c) => c.outcome !== 'defer');
    const text = (v: string | null) => (mode === 'no_text' ? null : v);
    const failed = this.#options.failed;
    const announced = failed ? batch.filter((c) => c.outcome === 'failed' && failed.counts(c)) : [];
    const complete = (q: Queryable) =>
      completeDeliveries(q, this.#options.st, {
        nowIso: now,
        workerId: this.#options.workerId,
        outcomes: batch,
        again: batch.some((c) => c.again),
        attempts: attempts.map((c) => ({
          deliveryId: c.id,
          tenant: c.tenant,
          attempt: c.attempt,
          startedAt: c.startedAt,
          durationMs: c.durationMs,
          status: c.status,
          excerpt: text(c.excerpt),
          errorCode: c.errorCode,
          errorMessage: text(c.errorMessage),
          endpointId: c.endpointId,
          id: c.attemptId,
        })),
      });
    try {
      if (failed && announced.length > 0) {
        await failed.sql.transaction(async (tx) => {
          const ids = new Set((await complete(tx)).failed);
          const done = announced.filter((c) => ids.has(c.id));
          if (done.length > 0) await failed.publish(tx, done);
        });
      } else {
        await complete(this.#options.sql);
      }
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
    // Recorded: health is derived from the batch, and writing the batch again over a health
    // failure would duplicate its attempt rows (the attempt insert is not fenced).
    const tried = batch.filter((c) => c.outcome !== 'defer');
    await this.#options.written(tried, now).catch((error: unknown) => this.#options.on.error(error as Error));
    return undefined;
  }
}

/** `value` storable and capped; `replaced` when characters had to be replaced (not merely cut). */
function clean(value: string | null, maxLength: number): { text: string | null; replaced: boolean } {
  if (value === null) return { text: null, replaced: false };
  const text = toPgText(value, maxLength);
  return { text, replaced: text !== value.slice(0, text.length) };
}
