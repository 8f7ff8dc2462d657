/**
 * The Idempotency-Key experiments. Each uses fresh keys, so that one experiment's answers cannot
 * explain another's; together they send 11 requests (16 when 409 in flight fails on timing
 * and is measured again).
 */
import type { Exchange } from './client.js';
import {
  brief,
  type Context,
  deriveAltBody,
  is2xx,
  is4xx,
  markedReplay,
  newKey,
  request,
  sameAnswer,
} from './operation.js';
import { type RuleId, type RuleResult, result } from './rules.js';

const KEY = 'Idempotency-Key';

/** Runs `experiment`; a request that fails or a spent budget leaves its rules inconclusive. */
export async function attempt(ids: RuleId[], experiment: () => Promise<RuleResult[]>): Promise<RuleResult[]> {
  try {
    return await experiment();
  } catch (error) {
    const why = (error as Error).message;
    return ids.map((id) => result(id, 'inconclusive', `not run to the end: ${why}`));
  }
}

/** The baseline and the replay; `first` is the baseline answer the other experiments need. */
async function replay(ctx: Context): Promise<{ results: RuleResult[]; first?: Exchange }> {
  const { client, operation } = ctx;
  const key = newKey();
  const first = await client.send(request(operation, { [KEY]: key }));
  if (!is2xx(first)) {
    const why = `the operation answered ${brief(first)} to a first keyed request: fix the URL, body or headers (auth) until it succeeds`;
    return { results: (['replay', 'replay-header'] as const).map((id) => result(id, 'inconclusive', why)) };
  }
  const second = await client.send(request(operation, { [KEY]: key }));
  ctx.timing = { executionMs: Math.max(0, first.ms - second.ms), replayMs: second.ms };
  const results = [
    sameAnswer(first, second)
      ? result('replay', 'pass', `${first.status} replayed byte for byte`)
      : result(
          'replay',
          'fail',
          `first ${brief(first)}, retry ${brief(second)}: the retry ran again; store the answer with the key and replay it`,
        ),
    markedReplay(second)
      ? result('replay-header', 'pass', 'Idempotent-Replayed: true')
      : result(
          'replay-header',
          'fail',
          'the replay carries no Idempotent-Replayed: true: add it, so clients can tell',
        ),
  ];
  return { results, first };
}

async function reuse(ctx: Context): Promise<RuleResult[]> {
  const { client, operation } = ctx;
  const alt = operation.altBody ?? deriveAltBody(operation.body);
  if (alt === undefined || alt === operation.body)
    return [result('reuse-422', 'inconclusive', 'no second body to send: pass --alt-body')];
  const key = newKey();
  const original = await client.send(request(operation, { [KEY]: key }));
  const reused = await client.send(request(operation, { [KEY]: key }, alt));
  if (reused.status === 422 || is4xx(reused)) {
    // Was it the reuse, or is the second body invalid on its own? Send it with a key of its own.
    const alone = await client.send(request(operation, { [KEY]: newKey() }, alt));
    if (!is2xx(alone))
      return [
        result(
          'reuse-422',
          'inconclusive',
          `the second body is refused on its own (${brief(alone)}): pass --alt-body`,
        ),
      ];
    return reused.status === 422
      ? [result('reuse-422', 'pass', '422 for the reused key')]
      : [
          result(
            'reuse-422',
            'fail',
            `${brief(reused)} for the reused key: answer 422 (the draft's code for it)`,
          ),
        ];
  }
  if (is2xx(reused) && sameAnswer(original, reused))
    return [
      result('reuse-422', 'fail', 'the first answer was replayed for another body: fingerprint the body'),
    ];
  return [
    result(
      'reuse-422',
      'fail',
      `${brief(reused)} for the reused key with another body: refuse it with 422 (key reuse is a client bug)`,
    ),
  ];
}

async function quoted(ctx: Context): Promise<RuleResult[]> {
  const { client, operation } = ctx;
  const key = newKey();
  const a = await client.send(request(operation, { [KEY]: `"${key}"` }));
  if (!is2xx(a))
    return [
      result(
        'quoted-key',
        'fail',
        `${brief(a)} for Idempotency-Key: "${key}": accept the draft's own (quoted) form`,
      ),
    ];
  const b = await client.send(request(operation, { [KEY]: key }));
  if (sameAnswer(a, b) || markedReplay(b))
    return [result('quoted-key', 'pass', `"k" then k: ${b.status} replayed`)];
  if (b.status === 400)
    return [result('quoted-key', 'pass', 'the bare form k is refused with 400 (strict parsing)')];
  return [
    result(
      'quoted-key',
      'fail',
      `"k" then k: ${brief(b)}, a second execution: parse the header as an RFC 8941 String, so both name one key`,
    ),
  ];
}

async function missing(ctx: Context): Promise<RuleResult[]> {
  const r = await ctx.client.send(request(ctx.operation));
  if (r.status === 400) return [result('missing-key-400', 'pass', '400 without a key')];
  if (is2xx(r))
    return [
      result('missing-key-400', 'not-applicable', `${r.status} without a key: the key is optional here`),
    ];
  return [result('missing-key-400', 'fail', `${brief(r)} without a key: answer 400, saying how to send one`)];
}

async function length(ctx: Context): Promise<RuleResult[]> {
  const r = await ctx.client.send(request(ctx.operation, { [KEY]: 'k'.repeat(1024) }));
  if (is4xx(r)) return [result('key-length', 'pass', `${r.status} for a 1,024-character key`)];
  return [
    result(
      'key-length',
      'fail',
      `${brief(r)} for a 1,024-character key: bound the key (e.g. 255 characters) and answer 400 beyond it`,
    ),
  ];
}

async function inFlight(ctx: Context): Promise<RuleResult[]> {
  const first = await duplicates(ctx);
  if (first.conflict.verdict !== 'fail' || first.conflicts > 0 || first.once.verdict === 'fail') {
    return [first.once, first.conflict];
  }
  // A failure on timing alone rests on one measured execution: a pause on a loaded host (a GC, a
  // busy core) in the baseline's first request makes a fast operation look slow, and duplicates
  // queued by the same load look as if they waited for it. So the execution is measured again (a
  // fresh key and its replay: the shorter of the two measures stands) and the duplicates are sent
  // again; the rule fails only if it fails again.
  const key = newKey();
  const original = await ctx.client.send(request(ctx.operation, { [KEY]: key }));
  const again = await ctx.client.send(request(ctx.operation, { [KEY]: key }));
  if (is2xx(original) && ctx.timing) {
    const executionMs = Math.max(0, original.ms - again.ms);
    if (executionMs < ctx.timing.executionMs) ctx.timing = { executionMs, replayMs: again.ms };
  }
  const second = await duplicates(ctx);
  return [second.once.verdict === 'fail' ? second.once : first.once, second.conflict];
}

/** Sends `ctx.duplicates` requests with one fresh key at once and judges both in-flight rules. */
async function duplicates(
  ctx: Context,
): Promise<{ once: RuleResult; conflict: RuleResult; conflicts: number }> {
  const { client, operation } = ctx;
  const key = newKey();
  const answers = await client.burst(
    Array.from({ length: ctx.duplicates }, () => request(operation, { [KEY]: key })),
  );
  const executions = answers.filter((r) => is2xx(r) && !markedReplay(r));
  const distinct = new Set(executions.map((r) => `${r.status} ${r.body}`));
  const once =
    distinct.size <= 1
      ? result(
          'in-flight-once',
          'pass',
          `${ctx.duplicates} at once: ${answers.map((r) => r.status).join(', ')}`,
        )
      : result(
          'in-flight-once',
          'fail',
          `${ctx.duplicates} at once ran ${distinct.size} times: claim the key before running (a lock or unique row)`,
        );
  const conflicts = answers.filter((r) => r.status === 409);
  let conflict: RuleResult;
  if (conflicts.length > 0) {
    conflict = conflicts.every((r) => r.headers['retry-after'] !== undefined)
      ? result('in-flight-409', 'pass', `409 with Retry-After: ${conflicts[0]!.headers['retry-after']}`)
      : result('in-flight-409', 'fail', '409 without Retry-After: say when to retry');
  } else {
    // How long the operation itself runs: a first request minus a replay (which costs the round
    // trip and a lookup), measured by the replay experiment, so that network latency is not taken
    // for execution. Duplicates sent at once into an execution that long arrived while it ran; if
    // they also took about that long, they waited for it instead of getting 409.
    const executionMs = ctx.timing?.executionMs ?? 0;
    const slowest = Math.max(...answers.map((r) => r.ms));
    const waited = slowest >= (ctx.timing?.replayMs ?? 0) + executionMs / 2;
    conflict =
      executionMs >= ctx.inFlightMs && waited
        ? result(
            'in-flight-409',
            'fail',
            `no 409: the operation runs ~${Math.round(executionMs)} ms and the duplicates waited (${Math.round(slowest)} ms) for its answer: answer 409 at once`,
          )
        : result(
            'in-flight-409',
            'inconclusive',
            `no 409: the operation runs ~${Math.round(executionMs)} ms, too fast to be sure the duplicates arrived while it ran (a slower operation would show it)`,
          );
  }
  return { once, conflict, conflicts: conflicts.length };
}

/** Every Idempotency-Key rule, in the order of `RULES`. */
export async function probeIdempotency(ctx: Context): Promise<{ results: RuleResult[]; first?: Exchange }> {
  let first: Exchange | undefined;
  const results = await attempt(['replay', 'replay-header'], async () => {
    const baseline = await replay(ctx);
    first = baseline.first;
    return baseline.results;
  });
  const rest = first
    ? [
        ...(await attempt(['reuse-422'], () => reuse(ctx))),
        ...(await attempt(['in-flight-once', 'in-flight-409'], () => inFlight(ctx))),
        ...(await attempt(['missing-key-400'], () => missing(ctx))),
        ...(await attempt(['key-length'], () => length(ctx))),
        ...(await attempt(['quoted-key'], () => quoted(ctx))),
      ]
    : (
        [
          'reuse-422',
          'in-flight-once',
          'in-flight-409',
          'missing-key-400',
          'key-length',
          'quoted-key',
        ] as const
      ).map((id) => result(id, 'inconclusive', 'the first keyed request did not succeed'));
  return { results: [...results, ...rest], ...(first ? { first } : {}) };
}
