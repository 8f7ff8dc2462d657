import { randomUUID } from 'node:crypto';
import { readDecision } from './lease.js';
import { lockId } from './lock.js';
import type { PhaseStatements } from './phase-statements.js';
import { afterLostAnswer } from './release-later.js';
import { type ClaimRow, decide, jsonColumn, toRow } from './replay.js';
import type { EngineContext, IdempotencyRequest, Outcome } from './types.js';

/** A key acquired for a phased run: the owner's token and what the run resumes from. */
export interface Acquired {
  token: string;
  state: Record<string, unknown>;
  recoveryPoint: string | undefined;
}

interface AcquireRow {
  locked: boolean;
  claimed: boolean;
  phase_state: string | null;
  recovery_point: string | null;
  /** The key's row as the statement's snapshot saw it (a driver that leaves json unparsed hands its text). */
  current: ClaimRow | string | null;
  /** The live rows of the key's former forms (a driver that leaves json unparsed hands its text). */
  former: ClaimRow[] | string | null;
}

/** A JSON round trip: what a resumed run reads back, so the first run sees the same. */
export function asJson(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? 'null' : text;
}

/**
 * Acquires `request`'s key for `operation` in one statement: a new key, the lapsed lease of a
 * crashed run (resumed from its phases), an expired key (started over), or what the stored row
 * answers (a replay, a mismatch, in flight). A live row under a former form of the key answers as
 * the key's own would, and nothing is written under the new form while it lives.
 */
export async function acquire(
  ctx: EngineContext,
  pst: PhaseStatements,
  { tenant, key, fingerprint, formerKeys = [] }: IdempotencyRequest,
  operation: string,
  input: unknown,
  lock: string,
): Promise<Acquired | Outcome> {
  const { retryAfterSeconds } = ctx;
  const inputJson = asJson(input);
  // The acquire reads one former form; further ones (no adapter sends more than one) are read first.
  for (const former of formerKeys.slice(1)) {
    const decided = await readDecision(ctx, tenant, former, fingerprint, ctx.now());
    if (decided) return decided;
  }
  let formers = formerKeys.slice(0, 1);
  for (let attempt = 0; attempt < 3; attempt++) {
    const now = ctx.now();
    const token = randomUUID();
    const abandon = () =>
      ctx.sql.query(pst.abandon, [tenant, key, token, lock, new Date(ctx.now()).toISOString()]);
    const { rows } = await afterLostAnswer(ctx, abandon, now + ctx.leaseMs, () =>
      ctx.sql.query<AcquireRow>(pst.acquire, [
        lock,
        tenant,
        key,
        fingerprint,
        token,
        new Date(now + ctx.leaseMs).toISOString(),
        new Date(now).toISOString(),
        new Date(now + ctx.ttlMs).toISOString(),
        operation,
        inputJson,
        formers[0] === undefined ? null : lockId(tenant, formers[0]),
      ]),
    );
    const { locked, claimed, phase_state, recovery_point, current, former } = rows[0]!;
    const formerRows = jsonColumn(former) ?? [];
    for (const name of formers) {
      const row = formerRows.find((r) => r.tenant === tenant && r.key === name);
      const decided = row && decide({ row: toRow(row, now), fingerprint, retryAfterSeconds });
      if (decided) return decided;
    }
    if (formerRows.length > 0) {
      // A former row that does not decide (the lapsed lease of a run under the old form) kept the
      // new form unwritten, as does another key's row on a lock-id collision: acquire without them.
      formers = [];
      continue;
    }
    if (!locked) return { kind: 'in_flight', retryAfterSeconds };
    if (claimed) {
      const state = phase_state ? (JSON.parse(phase_state) as Record<string, unknown>) : {};
      for (const name of Object.keys(state)) if (name.endsWith(':started')) delete state[name];
      return { token, state, recoveryPoint: recovery_point ?? undefined };
    }
    const seen = jsonColumn(current);
    const decided = seen && decide({ row: toRow(seen, now), fingerprint, retryAfterSeconds });
    if (decided) return decided;
    // A row committed after the statement's snapshot (a concurrent first request): read it.
    const again = await readDecision(ctx, tenant, key, fingerprint, now);
    if (again) return again;
  }
  return { kind: 'in_flight', retryAfterSeconds };
}
