// Webhooks.maintain: the history's partition windows created ahead, and retention by dropping whole
// windows (docs/operations.md, "Partitions and retention"; docs/decisions.md, issue 22 and session
// 10). Every step is one short transaction whose locks wait `lockWaitMs` at most: a statement queued
// behind its lock request (a publish, behind a drop's) waits no longer. A step whose locks are busy
// is tried again after jittered pauses for `lockTimeoutMs`, then reported and left to the next run.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Sql } from '@surety/db';
import type { WebhooksContext } from '../context.js';
import { ClockSkewError, InvalidInputError } from '../errors.js';
import {
  createWindow,
  dropWindow,
  expiredWindows,
  forgetEventIds,
  isLockConflict,
  lastWindow,
  windowGaps,
} from '../sql/partitions.js';

const DAY = 86_400_000;
/** Windows one run creates at most (a clock moved years ahead must not run for hours). */
const MAX_CREATED = 400;
/** Tries of one step at most, and the longest pause between two. */
const MAX_TRIES = 50;
const MAX_PAUSE_MS = 1000;

export interface MaintainOptions {
  /** History older than this many days is dropped, a whole window at a time. */
  retentionDays: number;
  /** Width of a window in days (1: daily partitions, 7: weekly). @default 1 */
  partitionDays?: number;
  /** Windows kept ready ahead of now. @default 7 */
  ahead?: number;
  /**
   * How long a step keeps trying to take its locks (its tries and the pauses between them) before
   * it gives up until the next run. @default 2000
   */
  lockTimeoutMs?: number;
  /**
   * How long one try waits for a lock (its `lock_timeout`): what a statement that queues behind the
   * step's lock request waits at most, per try. At most `lockTimeoutMs`. @default 50
   */
  lockWaitMs?: number;
  /**
   * How far this process's clock (the engine's `now`, which dates its publishes) may be from the
   * database's `now()`, which every decision here is made by. Further off, maintain throws
   * ClockSkewError before it changes anything. @default 300000 (5 minutes)
   */
  maxClockSkewMs?: number;
}

/** Time no window covers, between two windows: rows dated there go to DEFAULT (issue 30). */
export interface WindowGap {
  from: string;
  to: string;
}

/** A window retention could not drop yet, and why (it is tried again at every run). */
export interface HeldWindow {
  window: string;
  /** The window's end: it became due for retention `retentionDays` after this. */
  endsAt: string;
  /** `pending`: deliveries still pending in it or for its events; `locked`: its locks were busy. */
  reason: 'pending' | 'locked';
  /** How many deliveries are still pending (0 for `locked`). */
  pending: number;
}

export interface MaintenanceReport {
  /** Windows created, by partition suffix (`p20261201`). */
  created: string[];
  /** Windows dropped. */
  dropped: string[];
  held: HeldWindow[];
  /** Window creation that could not take its locks in time (tried again at the next run). */
  createBlocked: boolean;
  /** Tries that ran out of `lockWaitMs` waiting for a lock (each tried again, or given up). */
  lockTimeouts: number;
  /** The end of the last window: rows up to here land in a window, later ones in DEFAULT. */
  readyUntil: string;
  /**
   * Gaps found between windows not yet past retention (alert on any): each was filled with a new
   * window in this run (in `created`), its rows moved out of DEFAULT, unless its locks were busy.
   */
  gaps: WindowGap[];
  /** This process's clock minus the database's, in milliseconds (within `maxClockSkewMs`). */
  clockSkewMs: number;
}

/** `p` and the window's first day, UTC: `p20261201`. */
const suffixOf = (ms: number) => `p${new Date(ms).toISOString().slice(0, 10).replaceAll('-', '')}`;

/** Refuses an option out of range (InvalidInputError), before anything is read or locked. */
function checkOptions(options: MaintainOptions): void {
  const int = (name: string, v: number | undefined, min: number, max: number) => {
    if (v !== undefined && !(Number.isInteger(v) && v >= min && v <= max)) {
      throw new InvalidInputError(`${name} must be an integer from ${min} to ${max}`);
    }
  };
  int('retentionDays', options.retentionDays, 1, 36_500);
  int('partitionDays', options.partitionDays, 1, 366);
  int('ahead', options.ahead, 1, 366);
  int('lockTimeoutMs', options.lockTimeoutMs, 1, 600_000);
  int('lockWaitMs', options.lockWaitMs, 1, 600_000);
  int('maxClockSkewMs', options.maxClockSkewMs, 0, 36_500 * DAY);
}

/** Webhooks.maintain (see its comment). */
export async function maintain(ctx: WebhooksContext, options: MaintainOptions): Promise<MaintenanceReport> {
  checkOptions(options);
  const t = ctx.st.tables;
  // Decided by the database's clock; a caller's clock far from it is refused (issue 30, N2).
  const nowMs = await ctx.dbNow(ctx.sql);
  const clockSkewMs = ctx.now() - nowMs;
  const maxSkew = options.maxClockSkewMs ?? 300_000;
  if (Math.abs(clockSkewMs) > maxSkew) throw new ClockSkewError(clockSkewMs, maxSkew);
  const width = (options.partitionDays ?? 1) * DAY;
  const budgetMs = options.lockTimeoutMs ?? 2000;
  const waitMs = Math.min(options.lockWaitMs ?? 50, budgetMs);
  const report: MaintenanceReport = {
    created: [],
    dropped: [],
    held: [],
    createBlocked: false,
    lockTimeouts: 0,
    readyUntil: '',
    gaps: [],
    clockSkewMs,
  };
  const step = <T>(fn: (tx: StepTx) => Promise<T>) => tries(ctx.sql, budgetMs, waitMs, report, fn);
  const target = nowMs + (options.ahead ?? 7) * width;
  for (let n = 0; n < MAX_CREATED; n++) {
    const last = await lastWindow(ctx.sql, t);
    if (last.endsMs >= target) break;
    // Windows start at UTC midnight. After a long stop, one window covers the whole gap up to today.
    const today = Math.floor(nowMs / DAY) * DAY;
    const endsMs = Math.max(last.endsMs + width, today);
    const suffix = suffixOf(last.endsMs);
    const created = await step((tx) =>
      createWindow(tx, t, { suffix, startsMs: last.endsMs, endsMs, lockTimeoutMs: waitMs }),
    );
    if (created === 'locked') {
      report.createBlocked = true;
      break;
    }
    if (created) report.created.push(suffix);
  }
  const cutoffMs = nowMs - options.retentionDays * DAY;
  // A gap (an older version's retention by a skewed clock dropped windows still in use): filled
  // with one window, the rows DEFAULT caught for it moved in.
  for (const gap of await windowGaps(ctx.sql, t, cutoffMs)) {
    report.gaps.push({ from: new Date(gap.startsMs).toISOString(), to: new Date(gap.endsMs).toISOString() });
    const suffix = suffixOf(gap.startsMs);
    const created = await step((tx) =>
      createWindow(tx, t, { suffix, startsMs: gap.startsMs, endsMs: gap.endsMs, lockTimeoutMs: waitMs }),
    );
    if (created === 'locked') report.createBlocked = true;
    else if (created) report.created.push(suffix);
  }
  for (const win of await expiredWindows(ctx.sql, t, cutoffMs)) {
    const endsAt = new Date(win.endsMs).toISOString();
    const result = await step((tx) => dropWindow(tx, t, { suffix: win.suffix, lockTimeoutMs: waitMs }));
    if (result === 'locked') report.held.push({ window: win.suffix, endsAt, reason: 'locked', pending: 0 });
    else if (result.kind === 'pending') {
      report.held.push({ window: win.suffix, endsAt, reason: 'pending', pending: result.pending });
    } else if (result.kind === 'dropped') {
      report.dropped.push(win.suffix);
      await forgetEventIds(ctx.sql, t, {
        startsMs: win.startsMs,
        endsMs: win.endsMs,
        batch: 5000,
        maxBatches: 1000,
      });
    }
  }
  report.readyUntil = new Date((await lastWindow(ctx.sql, t)).endsMs).toISOString();
  return report;
}

type StepTx = Parameters<Parameters<Sql['transaction']>[0]>[0];

/**
 * One maintenance transaction, tried again while its locks are busy (each try waits `waitMs` for
 * a lock), after pauses that double from `waitMs` up to a second, jittered by ±50%, for as long as
 * a try still ends within `budgetMs`; 'locked' when it gave up.
 */
async function tries<T>(
  sql: Sql,
  budgetMs: number,
  waitMs: number,
  report: { lockTimeouts: number },
  fn: (tx: StepTx) => Promise<T>,
): Promise<T | 'locked'> {
  const started = performance.now();
  for (let n = 0; n < MAX_TRIES; n++) {
    try {
      return await sql.transaction((tx) => fn(tx));
    } catch (error) {
      if (!isLockConflict(error)) throw error;
      report.lockTimeouts++;
      // The last try is moved up to end with the budget rather than dropped.
      const left = budgetMs - (performance.now() - started) - waitMs;
      if (left <= 0) break;
      await sleep(Math.min(Math.min(waitMs * 2 ** n, MAX_PAUSE_MS) * (0.5 + Math.random()), left));
    }
  }
  return 'locked';
}
