// What the smoke apps of "a transaction you opened" share (postgres-js-begin.ts, typeorm-joined.ts,
// prisma-joined.ts): the route opens its ORM's transaction itself (postgresBegin, typeormTransaction,
// prismaTransaction) and runs the engine inside it (`engine.using(joined).execute(…)`), so no
// framework adapter is involved; the key is read and the outcome answered with the helpers
// @surety/idempotency exports (readKey, outcomeResponse, problemBody), as docs/idempotency.md's
// lease-mode route does.
import {
  fingerprint,
  type IdempotencyRequest,
  type Outcome,
  outcomeResponse,
  PROBLEM_CONTENT_TYPE,
  type Problem,
  problemBody,
  readKey,
  type StoredResponse,
} from '@surety/idempotency';
import type { PaymentBody } from './check.js';

/**
 * One keyed POST /payments: the key checked (a 400 problem before anything runs), then `run` with
 * the engine's request (it opens the transaction and executes in it), its outcome as HTTP.
 */
export async function joinedPost(
  header: string | string[] | undefined,
  body: PaymentBody,
  run: (request: IdempotencyRequest) => Promise<Outcome>,
): Promise<StoredResponse> {
  const read = readKey(header, true);
  if (read.kind === 'problem') return asHttp(read.problem);
  const outcome = await run({
    tenant: '',
    key: read.key!,
    fingerprint: fingerprint({ method: 'POST', url: '/payments', body }),
  });
  return asHttp(outcome.kind === 'executed' ? outcome.response : outcomeResponse(outcome));
}

/** A stored response as it is; a Problem as application/problem+json with its headers (Retry-After). */
function asHttp(answer: StoredResponse | Problem): StoredResponse {
  if ('body' in answer) return answer;
  return {
    status: answer.status,
    headers: { ...answer.headers, 'content-type': PROBLEM_CONTENT_TYPE },
    body: problemBody(answer),
  };
}

/** The handler's answer to a payment it wrote: 201 with its JSON. */
export const created = (body: PaymentBody): StoredResponse => ({
  status: 201,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ id: body.id, cents: body.cents }),
});
