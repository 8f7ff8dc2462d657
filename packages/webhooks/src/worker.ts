import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import type { Queryable } from '@surety/db';
import { signSync } from '@surety/webhook-verify';
import { envelopeJson } from './envelope.js';
import { type Completion, OutcomeWriter, type UnstorableOutcome } from './outcome-writer.js';
import { DEFAULT_SCHEDULE, nextDelay, parseRetryAfter } from './schedule.js';
import {
  createGuardedDispatcher,
  type GuardedDispatcher,
  type GuardedResponse,
  type GuardOptions,
  guardedPost,
} from './ssrf/index.js';
import type { SecretEntry, Webhooks } from './webhooks.js';

/** One HTTP attempt; the default goes through the SSRF guard. Throws errors with a `code`. */
export type PostFn = (
  url: string,
  request: { headers: Record<string, string>; body: string; timeoutMs: number },
) => Promise<Pick<GuardedResponse, 'status' | 'headers' | 'bodyExcerpt'>>;

export interface DeliveryWorkerOptions {
  webhooks: Webhooks;
  /** Fencing identity of this worker. @default host:pid:random */
  id?: string;
  /** Most HTTP attempts in flight at once. @default 64 */
  concurrency?: number;
  /** Most deliveries claimed per statement. @default 100 */
  batchSize?: number;
  /**
   * Most attempts in flight (claimed and not yet finished) for one endpoint, counted across every
   * worker on the database: a slow or hanging receiver holds at most this many slots, and its
   * tenant's other endpoints keep the rest of the tenant's. It also bounds one endpoint's throughput
   * to this many attempts per receiver round trip: raise it for a single-tenant deployment.
   * @default 32
   */
  maxInFlightPerEndpoint?: number;
  /**
   * Most attempts in flight for one tenant, across all its endpoints and every worker: one tenant's
   * hanging receivers or burst never take every slot. Keep it below the total concurrency of the
   * workers (the default is 3/4 of one default worker's).
   * @default 48
   */
  maxInFlightPerTenant?: number;
  /**
   * Most claimable due rows a claim reads to pick from (rows it skips, of full endpoints or tenants,
   * in flight, or without a token, do not count). The picks interleave the tenants seen in it; a
   * tenant that fills its slots is skipped by the next claim's walk, so a small window is fair over
   * consecutive claims, and each claim sorts this many rows.
   * @default 2 × batchSize
   */
  claimWindow?: number;
  /** How often to look for due retries when no NOTIFY arrives. @default 500 */
  pollIntervalMs?: number;
  /** How long a claimed delivery is reserved before another worker may take it. @default 60000 */
  leaseMs?: number;
  /** Whole-attempt timeout. @default 10000 */
  timeoutMs?: number;
  /** Delays after the first attempt, in seconds. @default DEFAULT_SCHEDULE (5s … 24h) */
  schedule?: readonly number[];
  /** Disable an endpoint with no success for this long. @default 5 days */
  disableAfterMs?: number;
  /** Longest receiver `Retry-After` honoured. @default 3600 */
  maxRetryAfterSeconds?: number;
  /**
   * Consecutive failed attempts to an endpoint that open its circuit breaker: its deliveries then
   * wait behind a single probe attempt (docs/webhooks.md). @default 10
   */
  circuitThreshold?: number;
  /** Wait before the first probe of an open breaker; doubles after each failed probe. @default 5000 */
  circuitProbeMs?: number;
  /**
   * Longest wait between two probes. Held deliveries are due 12 times this after the probe unless a
   * probe's success releases them first (1 hour by default): a long outage moves them once an hour.
   * @default 300000 (5 minutes)
   */
  circuitMaxProbeMs?: number;
  /** SSRF guard settings for the default transport (allow-list, timeouts, proxy). */
  guard?: GuardOptions;
  /** Replace the HTTP transport (tests inject a recorder). */
  post?: PostFn;
  /** Use LISTEN/NOTIFY to wake at once on new events. @default true */
  listen?: boolean;
  /** Random source for jitter. @default Math.random */
  random?: () => number;
  /**
   * How long to gather outcomes before writing them in one statement. The attempt has already
   * happened; this only delays its record (and, in ordered mode, the next claim of that endpoint).
   * @default 20
   */
  flushIntervalMs?: number;
}

export type AttemptOutcome = 'delivered' | 'retry' | 'failed';

export interface AttemptEvent {
  deliveryId: string;
  eventId: string;
  endpointId: string;
  tenant: string;
  attempt: number;
  outcome: AttemptOutcome;
  status: number | null;
  errorCode: string | null;
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

interface Claimed {
  id: string;
  tenant: string;
  endpoint_id: string;
  attempts: number;
  event_id: string;
  type: string | null;
  api_version: string;
  created_at: Date;
  sequence: string;
  data: string;
  url: string | null;
  secrets: SecretEntry[] | null;
  format: 'surety' | 'standard';
  endpoint_status: string | null;
  retry_schedule: number[] | null;
  rate_limit: number | null;
}

/** How long a freed slot of a held-back tenant waits for others before it wakes the claim loop. */
const HELD_WAKE_MS = 5;
/** Held deliveries wait this many longest probe intervals past the probe (1 hour by default). */
const HOLD_PROBES = 12;
const USER_AGENT = 'Surety-Webhooks/0.1';

/**
 * A delivery worker: claims due deliveries in batches with FOR UPDATE SKIP LOCKED, POSTs each
 * through the SSRF guard with its signature, and records outcomes in batches. Any number of workers
 * (in any number of processes) can share one database.
 * @example
 * const worker = new DeliveryWorker({ webhooks, guard: { allowList: allowListFromEnv() } });
 * await worker.start();
 * process.on('SIGTERM', () => worker.stop());
 */
export class DeliveryWorker extends EventEmitter<WorkerEventMap> {
  readonly id: string;
  readonly #w: Webhooks;
  readonly #o: Required<
    Pick<
      DeliveryWorkerOptions,
      | 'concurrency'
      | 'batchSize'
      | 'maxInFlightPerEndpoint'
      | 'maxInFlightPerTenant'
      | 'claimWindow'
      | 'pollIntervalMs'
      | 'leaseMs'
      | 'timeoutMs'
      | 'schedule'
      | 'disableAfterMs'
      | 'maxRetryAfterSeconds'
      | 'circuitThreshold'
      | 'circuitProbeMs'
      | 'circuitMaxProbeMs'
      | 'listen'
      | 'random'
      | 'flushIntervalMs'
    >
  >;
  readonly #post: PostFn;
  #guard: GuardedDispatcher | undefined;
  #running = false;
  #loop: Promise<void> | undefined;
  #inflight = 0;
  readonly #outcomes: OutcomeWriter;
  #wake: (() => void) | undefined;
  #woken = false;
  /** Endpoints this worker last saw healthy (no failure streak), and when. */
  readonly #healthyAt = new Map<string, number>();
  /** Claimed rows not yet sent, oldest first, with when they were claimed. */
  #queue: { row: Claimed; claimedAt: number }[] = [];
  /** Most rows held at once (queued + in flight): one batch beyond the concurrency. */
  readonly #capacity: number;
  /** Free room (and queue low-water mark) that justifies a new claim: half a batch. */
  readonly #refill: number;
  /** The claim loop sleeps for want of room, and the next finished attempt should wake it. */
  #starved = false;
  /** This worker's claimed rows not yet finished, per tenant and endpoint (`tenant\0endpoint`). */
  readonly #slots = new Map<string, number>();
  /** Tenants the last claim held rows back for (a cap): claim again when one of their attempts ends. */
  #held = new Set<string>();
  #heldWake: NodeJS.Timeout | undefined;
  #unlisten: (() => Promise<void>) | undefined;
  #idle: (() => void)[] = [];

  constructor(options: DeliveryWorkerOptions) {
    super();
    this.#w = options.webhooks;
    this.id = options.id ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    this.#o = {
      concurrency: options.concurrency ?? 64,
      batchSize: options.batchSize ?? 100,
      maxInFlightPerEndpoint: options.maxInFlightPerEndpoint ?? 32,
      maxInFlightPerTenant: options.maxInFlightPerTenant ?? 48,
      claimWindow: options.claimWindow ?? 2 * (options.batchSize ?? 100),
      pollIntervalMs: options.pollIntervalMs ?? 500,
      leaseMs: options.leaseMs ?? 60_000,
      timeoutMs: options.timeoutMs ?? 10_000,
      schedule: options.schedule ?? DEFAULT_SCHEDULE,
      disableAfterMs: options.disableAfterMs ?? 5 * 86_400_000,
      maxRetryAfterSeconds: options.maxRetryAfterSeconds ?? 3600,
      circuitThreshold: options.circuitThreshold ?? 10,
      circuitProbeMs: options.circuitProbeMs ?? 5000,
      circuitMaxProbeMs: options.circuitMaxProbeMs ?? 300_000,
      listen: options.listen ?? true,
      random: options.random ?? Math.random,
      flushIntervalMs: options.flushIntervalMs ?? 20,
    };
    this.#capacity = this.#o.concurrency + this.#o.batchSize;
    this.#refill = Math.max(1, Math.floor(Math.min(this.#o.batchSize, this.#o.concurrency) / 2));
    this.#outcomes = new OutcomeWriter({
      sql: this.#w.sql,
      statement: this.#w.st.complete,
      workerId: this.id,
      now: () => this.#w.now(),
      batchSize: this.#o.batchSize,
      flushIntervalMs: this.#o.flushIntervalMs,
      stopping: () => !this.#running,
      written: (batch, now) => this.#health(batch, now),
      on: {
        error: (error) => this.emit('worker:error', error),
        unstorable: (outcome) => this.emit('outcome:unstorable', outcome),
        blocked: (info) => this.emit('outcomes:blocked', info),
        resumed: (info) => this.emit('outcomes:resumed', info),
        settled: () => {
          if (this.#starved && this.#wantsClaim() > 0) this.#wakeUp();
        },
      },
    });
    if (options.post) {
      this.#post = options.post;
    } else {
      const guard = createGuardedDispatcher({
        allowList: this.#w.allowList,
        allowHttp: this.#w.allowHttp,
        timeoutMs: this.#o.timeoutMs,
        ...options.guard,
      });
      this.#guard = guard;
      this.#post = (url, req) => guardedPost(guard, url, req);
    }
  }

  /** Starts claiming and delivering; resolves once listening. */
  async start(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    if (this.#o.listen) {
      try {
        this.#unlisten = await this.#w.sql.listen(this.#w.channel, () => this.#wakeUp());
      } catch (error) {
        // Polling still delivers everything; LISTEN only makes it prompt.
        this.emit('worker:error', error as Error);
      }
    }
    // Outcomes a stop() with the database away gave up on: written first, as claims wait for them.
    if (this.#outcomes.size > 0) void this.#flush();
    this.#loop = this.#run();
  }

  /**
   * Stops claiming, hands back claimed rows not yet sent (due at once, no attempt counted), waits for
   * attempts in flight and records them.
   */
  async stop(): Promise<void> {
    if (!this.#running) return;
    this.#running = false;
    clearTimeout(this.#heldWake);
    this.#wakeUp();
    await this.#loop;
    const now = this.#w.now();
    for (const q of this.#queue.splice(0)) this.#handBack(q.row, now, 0);
    while (this.#inflight > 0) await new Promise<void>((r) => this.#idle.push(r));
    await this.#flush();
    await this.#w.sql.query(this.#w.st.releaseSlots, [this.id]).catch((error: unknown) => {
      this.emit('worker:error', error as Error); // the row stops counting when its lease passes
    });
    await this.#unlisten?.();
    await this.#guard?.close();
  }

  /** Claims and delivers until nothing is due, then resolves (tests, `surety worker --once`). */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      // Outcomes a previous call could not write go first; none written, nothing more is claimed.
      if (this.#outcomes.size > 0) await this.#flush();
      if (this.#outcomes.size > 0) return total;
      const n = await this.#claim(this.#o.batchSize);
      total += n;
      while (this.#inflight > 0 || this.#queue.length > 0) await new Promise<void>((r) => this.#idle.push(r));
      await this.#flush();
      // Outcomes that could not be written (the database away): claim no more.
      if (n === 0 || this.#outcomes.size > 0) return total;
    }
  }

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    if (wake) wake();
    // A NOTIFY that arrives while the loop is claiming must not be lost: the next sleep returns at once.
    else this.#woken = true;
  }

  #sleep(ms: number): Promise<void> {
    if (this.#woken) {
      this.#woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#wake = undefined;
        resolve();
      }, ms);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /**
   * How many rows to claim now: 0 unless the local queue is low and there is room for half a batch,
   * and outcomes are being written (none while they cannot be: what the worker holds stays bounded,
   * and rows it cannot record are not taken only to be sent again when their leases end).
   */
  #wantsClaim(): number {
    if (this.#outcomes.blocked || this.#outcomes.size >= this.#capacity) return 0;
    const room = this.#capacity - this.#queue.length - this.#inflight;
    if (this.#queue.length >= this.#refill || room < this.#refill) return 0;
    return Math.min(this.#o.batchSize, room);
  }

  // Claiming runs ahead of sending: the next batch is claimed while the last one is on the wire, so a
  // claim's round trip (a few milliseconds) never leaves the connections idle. At most `batchSize`
  // claimed rows wait beyond those in flight, and claims come in batches: waiting until half a batch
  // of room is free costs nothing, claiming one row each time one attempt finishes would cost a
  // statement per delivery.
  async #run(): Promise<void> {
    let backoff = 0;
    while (this.#running) {
      const want = this.#wantsClaim();
      if (want === 0) {
        this.#starved = true;
        await this.#sleep(this.#o.pollIntervalMs);
        this.#starved = false;
        continue;
      }
      let got: number;
      try {
        got = await this.#claim(want);
        backoff = 0;
      } catch (error) {
        this.emit('worker:error', error as Error);
        backoff = Math.min(5000, backoff ? backoff * 2 : 100);
        await this.#sleep(backoff);
        continue;
      }
      if (got < want) await this.#sleep(this.#o.pollIntervalMs);
    }
  }

  async #claim(limit: number): Promise<number> {
    const now = this.#w.now();
    const mine = [...this.#slots].map(([k, n]) => [...(k.split('\0') as [string, string]), n] as const);
    // The planner's guess of how many rows are pending comes from the last ANALYZE; after a sudden
    // backlog (a receiver down for an hour) it is far too low, and it reads and sorts EVERY pending
    // row to return the first hundred. Walking the due index in order is right at any backlog size:
    // the claim runs under `claimSettings` (bitmap scans and sorts off, and the lock that serialises
    // claims), set in the round trip of BEGIN. Tokens are taken in the same transaction, under that
    // lock, so the bucket the claim read is the one the tokens come from.
    const { rows, allowed, held } = await this.#w.sql.transaction(
      async (tx) => {
        const { rows: all } = await tx.query<Claimed & { held: string[] }>(this.#w.st.claim, [
          new Date(now).toISOString(),
          limit,
          new Date(now + this.#o.leaseMs).toISOString(),
          this.id,
          this.#o.claimWindow,
          this.#o.maxInFlightPerEndpoint,
          this.#o.maxInFlightPerTenant,
          mine.map((m) => m[0]),
          mine.map((m) => m[1]),
          mine.map((m) => m[2]),
        ]);
        const rows = all.filter((r) => r.id !== null);
        return { rows, allowed: await this.#rateLimit(tx, rows, now), held: all[0]?.held ?? [] };
      },
      { first: this.#w.st.claimSettings },
    );
    this.#held = new Set(held);
    if (rows.length === 0) return 0;
    for (const row of rows) {
      const k = `${row.tenant}\0${row.endpoint_id}`;
      this.#slots.set(k, (this.#slots.get(k) ?? 0) + 1);
      if (allowed.has(row.id)) this.#queue.push({ row, claimedAt: now });
      else this.#handBack(row, now);
    }
    this.#pump();
    return rows.length;
  }

  /** Starts queued attempts while there is room; wakes the claim loop when the queue runs low. */
  #pump(): void {
    while (this.#inflight < this.#o.concurrency && this.#queue.length > 0) {
      const { row, claimedAt } = this.#queue.shift()!;
      const now = this.#w.now();
      // A row that waited here for half its lease (receivers slower than the timeout allows for) goes
      // back untried rather than risk another worker claiming it while it is being sent.
      if (now - claimedAt > this.#o.leaseMs / 2) {
        this.#handBack(row, now, 0);
        continue;
      }
      this.#inflight++;
      this.#attempt(row)
        .then(
          (c) => this.#complete(c),
          (error: unknown) => this.emit('worker:error', error as Error),
        )
        .finally(() => {
          this.#inflight--;
          this.#release(row);
          this.#pump();
        });
    }
    if (this.#starved && this.#wantsClaim() > 0) this.#wakeUp();
    if (this.#inflight === 0 && this.#queue.length === 0) for (const r of this.#idle.splice(0)) r();
  }

  /**
   * A claimed row is done with (sent, or handed back): its slot is free for the next claim at once
   * (the row itself stays leased until its outcome is written, so no claim can take it meanwhile).
   * When the last claim held rows of this tenant back for a cap, claim again now rather than at the
   * next poll (another tenant's attempt ending frees none of its slots).
   */
  #release(row: Claimed): void {
    const k = `${row.tenant}\0${row.endpoint_id}`;
    const n = (this.#slots.get(k) ?? 1) - 1;
    if (n > 0) this.#slots.set(k, n);
    else this.#slots.delete(k);
    if (this.#held.has(row.tenant) && this.#running) {
      // A few milliseconds' grace lets the attempts that end together share one claim.
      this.#heldWake ??= setTimeout(() => {
        this.#heldWake = undefined;
        this.#wakeUp();
      }, HELD_WAKE_MS);
    }
  }

  /**
   * Which claimed rows may be sent now under their endpoints' rate limits (a shared token bucket).
   * The claim takes no more rows of a limited endpoint than its bucket holds and leaves the rest of
   * its backlog unclaimed, so this grants them all unless the bucket moved in between (a worker
   * whose clock runs behind the bucket's): only then is a row put back.
   */
  async #rateLimit(tx: Queryable, rows: Claimed[], now: number): Promise<Set<string>> {
    const allowed = new Set(rows.filter((r) => r.rate_limit === null).map((r) => r.id));
    const limited = rows.filter((r) => r.rate_limit !== null);
    if (limited.length === 0) return allowed;
    const wanted = new Map<string, Claimed[]>();
    for (const r of limited) {
      const k = `${r.tenant}\0${r.endpoint_id}`;
      wanted.set(k, [...(wanted.get(k) ?? []), r]);
    }
    const keys = [...wanted.keys()].map((k) => k.split('\0') as [string, string]);
    const { rows: grants } = await tx.query<{ tenant: string; id: string; granted: number }>(
      this.#w.st.takeTokens,
      [
        keys.map((k) => k[0]),
        keys.map((k) => k[1]),
        keys.map((k) => wanted.get(k.join('\0'))!.length),
        new Date(now).toISOString(),
      ],
    );
    for (const g of grants) {
      for (const r of wanted.get(`${g.tenant}\0${g.id}`)!.slice(0, g.granted)) allowed.add(r.id);
    }
    return allowed;
  }

  /** Puts a claimed row back unsent (see `#defer`) and frees its slot. */
  #handBack(row: Claimed, now: number, wait?: number): void {
    this.#complete(this.#defer(row, now, wait));
    this.#release(row);
  }

  /**
   * Puts a claimed delivery back without counting an attempt: due in `wait` ms (by default, a rate
   * limit's token interval plus jitter).
   */
  #defer(
    row: Claimed,
    now: number,
    wait = Math.ceil(1000 / (row.rate_limit ?? 1)) + Math.floor(this.#o.random() * 50),
  ): Completion {
    return {
      id: row.id,
      tenant: row.tenant,
      endpointId: row.endpoint_id,
      outcome: 'defer',
      nextAt: new Date(now + wait).toISOString(),
      status: null,
      errorCode: null,
      errorMessage: null,
      excerpt: null,
      attempt: row.attempts,
      startedAt: new Date(now).toISOString(),
      durationMs: 0,
      gone: false,
    };
  }

  async #attempt(row: Claimed): Promise<Completion> {
    const startedMs = this.#w.now();
    const started = performance.now();
    let status: number | null = null;
    let errorCode: string | null = null;
    let errorMessage: string | null = null;
    let excerpt: string | null = null;
    let retryAfter: number | undefined;
    if (row.url === null || row.type === null) {
      errorCode = row.url === null ? 'endpoint_deleted' : 'event_deleted';
    } else if (row.endpoint_status !== 'enabled') {
      errorCode = 'endpoint_disabled';
    } else {
      const body = envelopeJson({
        id: row.event_id,
        type: row.type,
        apiVersion: row.api_version,
        createdAt: row.created_at,
        sequence: row.sequence,
        data: row.data,
      });
      try {
        const secrets = (row.secrets ?? [])
          .filter((s) => s.expiresAt === null || Date.parse(s.expiresAt) > startedMs)
          .map((s) => s.secret);
        const signed = signSync({
          id: row.event_id,
          body,
          secrets,
          format: row.format,
          timestamp: Math.floor(startedMs / 1000),
        });
        const res = await this.#post(row.url, {
          headers: { ...signed, 'content-type': 'application/json', 'user-agent': USER_AGENT },
          body,
          timeoutMs: this.#o.timeoutMs,
        });
        status = res.status;
        excerpt = res.bodyExcerpt; // capped and made storable where outcomes are recorded
        if (status === 429 || status === 503) {
          retryAfter = parseRetryAfter(res.headers['retry-after'], this.#w.now());
        }
        if (status >= 300 && status < 400) errorCode = 'redirect_not_followed';
        else if (status >= 400 || status < 200) errorCode = `http_${status}`;
      } catch (error) {
        const e = error as { code?: unknown; message?: string };
        errorCode = typeof e.code === 'string' ? e.code : 'attempt_failed';
        errorMessage = e.message ?? String(error);
      }
    }
    const durationMs = Math.round(performance.now() - started);
    const ok = status !== null && status >= 200 && status < 300;
    const gone = status === 410;
    let outcome: AttemptOutcome;
    let nextAt: string | null = null;
    if (ok) {
      outcome = 'delivered';
    } else if (
      gone ||
      errorCode === 'endpoint_deleted' ||
      errorCode === 'endpoint_disabled' ||
      errorCode === 'event_deleted'
    ) {
      outcome = 'failed';
    } else {
      const schedule = this.#w.scheduleFor(row.retry_schedule, this.#o.schedule);
      const delay = nextDelay(schedule, row.attempts, {
        random: this.#o.random,
        ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }),
        maxRetryAfterSeconds: this.#o.maxRetryAfterSeconds,
      });
      if (delay === undefined) {
        outcome = 'failed';
      } else {
        outcome = 'retry';
        nextAt = new Date(this.#w.now() + delay).toISOString();
      }
    }
    const endMs = this.#w.now();
    this.emit('attempt:finished', {
      deliveryId: row.id,
      eventId: row.event_id,
      endpointId: row.endpoint_id,
      tenant: row.tenant,
      attempt: row.attempts,
      outcome,
      status,
      errorCode,
      durationMs,
      latencyMs: endMs - new Date(row.created_at).getTime(),
    });
    return {
      id: row.id,
      tenant: row.tenant,
      endpointId: row.endpoint_id,
      outcome,
      nextAt,
      status,
      errorCode,
      errorMessage,
      excerpt,
      attempt: row.attempts,
      startedAt: new Date(startedMs).toISOString(),
      durationMs,
      gone,
    };
  }

  #complete(c: Completion): void {
    this.#outcomes.add(c);
  }

  /** Writes buffered outcomes (outcome-writer.ts: sanitised, split around bad rows, kept while the database is away). */
  #flush(): Promise<void> {
    return this.#outcomes.flush();
  }

  /**
   * Endpoint health: last success/failure, the failure streak, the circuit breaker, and disabling
   * (410, or failing too long).
   */
  async #health(attempts: Completion[], now: string): Promise<void> {
    if (attempts.length === 0) return;
    const per = new Map<
      string,
      { tenant: string; id: string; ok: string | null; fail: string | null; gone: boolean; failures: number }
    >();
    // In start order, so that `failures` counts the failed attempts after the batch's last success.
    for (const c of [...attempts].sort((a, b) => (a.startedAt < b.startedAt ? -1 : 1))) {
      if (c.errorCode === 'endpoint_disabled' || c.errorCode === 'endpoint_deleted') continue;
      const k = `${c.tenant}\0${c.endpointId}`;
      const h = per.get(k) ?? {
        tenant: c.tenant,
        id: c.endpointId,
        ok: null,
        fail: null,
        gone: false,
        failures: 0,
      };
      if (c.outcome === 'delivered') {
        h.ok = c.startedAt > (h.ok ?? '') ? c.startedAt : h.ok;
        h.failures = 0;
      } else {
        h.fail = c.startedAt > (h.fail ?? '') ? c.startedAt : h.fail;
        // A deleted event sent nothing: not the receiver's failure.
        if (c.errorCode !== 'event_deleted') h.failures++;
      }
      h.gone ||= c.gone;
      per.set(k, h);
    }
    // Successes only, for an endpoint this worker found healthy less than a second ago: nothing to
    // record (last_success_at is kept to the second), so no statement. Failures always go through.
    const nowMs = Date.parse(now);
    for (const [k, h] of per) {
      const healthyAt = this.#healthyAt.get(k);
      if (h.fail === null && healthyAt !== undefined && nowMs - healthyAt < 1000) per.delete(k);
    }
    if (per.size === 0) return;
    const hs = [...per.values()].sort((a, b) => (a.tenant + a.id < b.tenant + b.id ? -1 : 1));
    const { rows } = await this.#w.sql.query<{
      tenant: string;
      id: string;
      status: string;
      failing_since: Date | null;
      gone: boolean;
      action: 'open' | 'close' | 'probe_failed' | 'hold' | null;
      held: number;
      released: number;
    }>(this.#w.st.health, [
      hs.map((h) => h.tenant),
      hs.map((h) => h.id),
      hs.map((h) => h.ok),
      hs.map((h) => h.fail),
      hs.map((h) => h.gone),
      hs.map((h) => h.failures),
      now,
      this.#o.circuitThreshold,
      this.#o.circuitProbeMs,
      this.#o.circuitMaxProbeMs,
      // The hold horizon: held deliveries are due this long after the probe (released sooner by its
      // success), so a long outage moves them once per horizon, not once per probe.
      HOLD_PROBES * this.#o.circuitMaxProbeMs,
      // Held rows are moved again before a probe whose outcome (its timeout, a flush, a second's
      // margin) could land after they come due.
      this.#o.timeoutMs + this.#o.flushIntervalMs + 1000,
    ]);
    for (const r of rows) {
      const e = { tenant: r.tenant, endpointId: r.id };
      if (r.action === 'open') this.emit('circuit:opened', { ...e, held: r.held });
      else if (r.action === 'probe_failed') this.emit('circuit:probe_failed', { ...e, held: r.held });
      else if (r.action === 'close') this.emit('circuit:closed', { ...e, released: r.released });
    }
    // Healthy now: a success with no failure in this batch, and no failure streak recorded (a row
    // that was not rewritten had nothing to change, so it had no streak either).
    const streak = new Set(rows.filter((r) => r.failing_since !== null).map((r) => `${r.tenant}\0${r.id}`));
    for (const h of hs) {
      const k = `${h.tenant}\0${h.id}`;
      if (h.ok !== null && h.fail === null && !streak.has(k)) this.#healthyAt.set(k, nowMs);
      else this.#healthyAt.delete(k);
    }
    const cutoff = Date.parse(now) - this.#o.disableAfterMs;
    for (const r of rows) {
      if (r.status !== 'enabled') continue;
      const reason = r.gone
        ? 'the endpoint answered 410 Gone'
        : r.failing_since && new Date(r.failing_since).getTime() < cutoff
          ? `no successful delivery since ${new Date(r.failing_since).toISOString()}`
          : undefined;
      if (!reason) continue;
      const disabled = await this.#w.sql.transaction((tx) =>
        this.#w.disableEndpoint(tx, r.tenant, r.id, reason),
      );
      if (disabled) this.emit('endpoint:disabled', { tenant: r.tenant, endpointId: r.id, reason });
    }
  }
}

/** Factory for `DeliveryWorker`. */
export const createDeliveryWorker = (options: DeliveryWorkerOptions) => new DeliveryWorker(options);
