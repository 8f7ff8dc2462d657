// The delivery loop: start / stop / drain, wake-ups (NOTIFY, polls, freed slots), the local queue
// between claims and attempts. The claim is sql/claim.ts, the attempt attempt.ts and its run
// attempt-run.ts, its meaning classify.ts, the records outcome-writer.ts, endpoint health health.ts;
// the slot counts worker-slots.ts, claims whose answer was lost lost-claims.ts; the wiring of the
// outcome writer, the health recorder, the POST and the brokers wiring.ts.
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import type { WebhooksContext } from '../context.js';
import { type Claimed, claimDeliveries, releaseSlots } from '../sql/claim.js';
import type { GuardedDispatcher } from '../ssrf/index.js';
import { contextOf } from '../webhooks.js';
import { deferral } from './attempt.js';
import { type AttemptParts, runAttempt } from './attempt-run.js';
import type { EndpointHealthRecorder } from './health.js';
import { LostClaims } from './lost-claims.js';
import { type MonitorReport, monitor } from './operational.js';
import type { OutcomeWriter } from './outcome-writer.js';
import { Wakeup } from './wake.js';
import { healthRecorderFor, outcomeWriterFor, postFor, publishFor, Repeating } from './wiring.js';
import type { WorkerEventMap } from './worker-events.js';
import {
  type DeliveryWorkerOptions,
  type ResolvedWorkerOptions,
  resolveWorkerOptions,
} from './worker-options.js';
import { WorkerSlots } from './worker-slots.js';

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
  readonly #ctx: WebhooksContext;
  readonly #options: ResolvedWorkerOptions;
  readonly #parts: AttemptParts;
  #guard: GuardedDispatcher | undefined;
  readonly #closeBrokers: (() => Promise<void>) | undefined;
  #running = false;
  #loop: Promise<void> | undefined;
  #inflight = 0;
  /** Buffered outcomes (outcome-writer.ts: sanitised, split around bad rows, kept while the database is away). */
  readonly #outcomes: OutcomeWriter;
  readonly #wakeup = new Wakeup();
  readonly #health: EndpointHealthRecorder;
  /** Claimed rows not yet sent, oldest first, with when they were claimed. */
  #queue: { row: Claimed; claimedAt: number }[] = [];
  /** Most rows held at once (queued + in flight): one batch beyond the concurrency. */
  readonly #capacity: number;
  /** Free room (and queue low-water mark) that justifies a new claim: half a batch. */
  readonly #refill: number;
  /** The claim loop sleeps for want of room, and the next finished attempt should wake it. */
  #starved = false;
  /** This worker's slot counts and held-back tenants (worker-slots.ts). */
  readonly #slots = new WorkerSlots(() => this.#wakeup.wake());
  readonly #lostClaims: LostClaims; // claims that failed and may have committed (lost-claims.ts)
  #unlisten: (() => Promise<void>) | undefined;
  /** The operational monitor's runs (operationalEvents). */
  #monitorRuns: Repeating | undefined;
  #idle: (() => void)[] = [];

  constructor(options: DeliveryWorkerOptions) {
    super();
    this.id = options.id ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    this.#ctx = contextOf(options.webhooks);
    this.#options = resolveWorkerOptions(options);
    this.#lostClaims = new LostClaims(this.#ctx.sql, this.#ctx.st, this.id);
    this.#capacity = this.#options.concurrency + this.#options.batchSize;
    this.#refill = Math.max(1, Math.floor(Math.min(this.#options.batchSize, this.#options.concurrency) / 2));
    this.#outcomes = outcomeWriterFor({
      worker: this,
      ctx: this.#ctx,
      options: this.#options,
      stopping: () => !this.#running,
      written: (batch, now) => this.#health.record(batch, now),
      settled: () => {
        if (this.#starved && this.#wantsClaim() > 0) this.#wakeup.wake();
      },
    });
    this.#health = healthRecorderFor({ worker: this, ctx: this.#ctx, options: this.#options });
    const wiring = { ctx: this.#ctx, given: options, options: this.#options };
    const { post, guard } = postFor(wiring);
    this.#guard = guard;
    const brokers = publishFor(wiring);
    this.#closeBrokers = brokers.close;
    this.#parts = { worker: this, ctx: this.#ctx, options: this.#options, post, publish: brokers.publish };
  }

  /** Starts claiming and delivering; resolves once listening. */
  async start(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    if (this.#options.listen) {
      try {
        this.#unlisten = await this.#ctx.sql.listen(this.#ctx.channel, () => this.#wakeup.wake());
      } catch (error) {
        // Polling still delivers everything; LISTEN only makes it prompt.
        this.emit('worker:error', error as Error);
      }
    }
    // Outcomes a stop() with the database away gave up on: written first, as claims wait for them.
    if (this.#outcomes.size > 0) void this.#outcomes.flush();
    this.#loop = this.#run();
    if (this.#options.operationalEvents) {
      this.#monitorRuns = new Repeating(
        () => this.monitor(),
        this.#options.monitorIntervalMs,
        (error) => this.emit('worker:error', error),
      );
    }
  }

  /**
   * One run of the operational monitor (operational.ts): backlog crossings and expiring secrets
   * published once each. The worker runs it every `monitorIntervalMs` with `operationalEvents`.
   */
  async monitor(): Promise<MonitorReport> {
    const report = await monitor(this.#ctx, {
      backlogThreshold: this.#options.backlogThreshold,
      secretExpiryNoticeMs: this.#options.secretExpiryNoticeMs,
      onError: (error) => this.emit('worker:error', error),
    });
    for (const e of report.published)
      this.emit('operational:published', { tenant: e.tenant, type: e.type, endpointId: e.endpointId });
    return report;
  }

  /**
   * Stops claiming, hands back claimed rows not yet sent (due at once, no attempt counted), waits for
   * attempts in flight and records them.
   */
  async stop(): Promise<void> {
    if (!this.#running) return this.#health.stop(); // a worker that only drained
    this.#running = false;
    this.#slots.stop();
    this.#monitorRuns?.cancel();
    this.#wakeup.wake();
    await this.#loop;
    const now = this.#ctx.now();
    for (const q of this.#queue.splice(0)) this.#handBack(q.row, now, 0);
    while (this.#inflight > 0) await new Promise<void>((r) => this.#idle.push(r));
    await this.#outcomes.flush();
    await this.#lostClaims.giveBack().catch((error: unknown) => this.emit('worker:error', error as Error));
    await releaseSlots(this.#ctx.sql, this.#ctx.st, { workerId: this.id }).catch((error: unknown) => {
      this.emit('worker:error', error as Error); // the row stops counting when its lease passes
    });
    await Promise.all([this.#monitorRuns?.idle(), this.#health.stop()]);
    await this.#unlisten?.();
    await this.#guard?.close();
    await this.#closeBrokers?.();
  }

  /** Claims and delivers until nothing is due, then resolves (tests, `surety worker --once`). */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      // Outcomes a previous call could not write go first; none written, nothing more is claimed.
      if (this.#outcomes.size > 0) await this.#outcomes.flush();
      if (this.#outcomes.size > 0) return total;
      const n = await this.#claim(this.#options.batchSize);
      total += n;
      while (this.#inflight > 0 || this.#queue.length > 0) await new Promise<void>((r) => this.#idle.push(r));
      await this.#outcomes.flush();
      // Outcomes that could not be written (the database away): claim no more.
      if (n === 0 || this.#outcomes.size > 0) return total;
    }
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
    return Math.min(this.#options.batchSize, room);
  }

  // Claiming runs ahead of sending (the next batch claimed while the last is on the wire), at most
  // `batchSize` rows beyond those in flight, in batches of at least half a batch: never a statement
  // per delivery.
  async #run(): Promise<void> {
    let backoff = 0;
    while (this.#running) {
      const want = this.#wantsClaim();
      if (want === 0) {
        this.#starved = true;
        await this.#wakeup.sleep(this.#options.pollIntervalMs);
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
        await this.#wakeup.sleep(backoff);
        continue;
      }
      if (got < want) await this.#wakeup.sleep(this.#options.pollIntervalMs);
    }
  }

  async #claim(limit: number): Promise<number> {
    const now = this.#ctx.now();
    const mine = this.#slots.mine();
    // sql/claim.ts; a claim that fails after its take may have committed: lost-claims.ts.
    const { rows, allowed, held } = await this.#lostClaims.claim(
      now,
      this.#options.leaseMs,
      (leaseUntilMs, taken) =>
        claimDeliveries(this.#ctx.sql, this.#ctx.st, {
          nowMs: now,
          limit,
          leaseUntilMs,
          workerId: this.id,
          claimWindow: this.#options.claimWindow,
          maxInFlightPerEndpoint: this.#options.maxInFlightPerEndpoint,
          maxInFlightPerTenant: this.#options.maxInFlightPerTenant,
          mine,
          taken,
        }),
    );
    this.#slots.held(held);
    if (rows.length === 0) return 0;
    for (const row of rows) {
      this.#slots.take(row);
      if (allowed.has(row.id)) this.#queue.push({ row, claimedAt: now });
      else this.#handBack(row, now);
    }
    this.#pump();
    return rows.length;
  }

  /** Starts queued attempts while there is room; wakes the claim loop when the queue runs low. */
  #pump(): void {
    while (this.#inflight < this.#options.concurrency && this.#queue.length > 0) {
      const { row, claimedAt } = this.#queue.shift()!;
      const now = this.#ctx.now();
      // A row that waited here for half its lease (receivers slower than the timeout allows for) goes
      // back untried rather than risk another worker claiming it while it is being sent.
      if (now - claimedAt > this.#options.leaseMs / 2) {
        this.#handBack(row, now, 0);
        continue;
      }
      this.#inflight++;
      // One reaction per attempt (not .then().finally(): a promise and a microtask more each).
      const done = () => {
        this.#inflight--;
        this.#release(row);
        this.#pump();
      };
      runAttempt(this.#parts, row).then(
        (c) => {
          try {
            this.#outcomes.add(c);
          } finally {
            done();
          }
        },
        (error: unknown) => {
          try {
            this.emit('worker:error', error as Error);
          } finally {
            done();
          }
        },
      );
    }
    if (this.#starved && this.#wantsClaim() > 0) this.#wakeup.wake();
    if (this.#inflight === 0 && this.#queue.length === 0) for (const r of this.#idle.splice(0)) r();
  }

  /** A claimed row is done with (sent, or handed back): its slot is free (worker-slots.ts). */
  #release(row: Claimed): void {
    this.#slots.release(row, this.#running);
  }

  /** Puts a claimed row back unsent (no attempt counted, due in `wait` ms) and frees its slot. */
  #handBack(row: Claimed, now: number, wait?: number): void {
    // By default, a rate limit's token interval plus jitter.
    const waitMs = wait ?? Math.ceil(1000 / (row.rate_limit ?? 1)) + Math.floor(this.#options.random() * 50);
    this.#outcomes.add(deferral(row, now, waitMs));
    this.#release(row);
  }
}

/** Factory for `DeliveryWorker`. */
export const createDeliveryWorker = (options: DeliveryWorkerOptions) => new DeliveryWorker(options);
