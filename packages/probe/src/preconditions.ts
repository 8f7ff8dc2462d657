/**
 * The RFC 9110 precondition experiments on a resource that has an ETag: a read (304) and, for a
 * write method, stale and weak If-Match (412, and nothing written), the current tag (proceeds) and
 * none at all (428 where required). The write without If-Match goes last: where it is not refused
 * it runs, and a DELETE then removes the resource.
 */
import { attempt } from './idempotency.js';
import { brief, type Context, is2xx, request } from './operation.js';
import { type RuleId, type RuleResult, result } from './rules.js';

const WRITE_RULES: RuleId[] = ['stale-412', 'weak-412', 'current-proceeds', 'missing-428'];

/** `"abc"` → `W/"abc"`; a weak tag stays as it is. */
const weakOf = (etag: string) => (etag.startsWith('W/') ? etag : `W/${etag}`);

/**
 * Probes the resource at `resourceUrl` (GET for its ETag); the write rules run when `write` is
 * true, with the operation's method and body.
 */
export async function probePreconditions(
  ctx: Context,
  resourceUrl: string,
  write: boolean,
): Promise<RuleResult[]> {
  const { client, operation } = ctx;
  const read = { ...operation, method: 'GET', url: resourceUrl, body: undefined };
  const ids: RuleId[] = ['etag-304', ...(write ? WRITE_RULES : [])];
  let etag: string | undefined;
  const head = await attempt(ids, async () => {
    const current = await client.send(request(read, {}, undefined));
    etag = current.headers.etag;
    if (!is2xx(current)) return ids.map((id) => result(id, 'inconclusive', `GET answered ${brief(current)}`));
    if (!etag) return ids.map((id) => result(id, 'not-applicable', 'the GET carries no ETag'));
    const revalidated = await client.send(request(read, { 'If-None-Match': etag }, undefined));
    return [
      revalidated.status === 304
        ? result('etag-304', 'pass', `304 for If-None-Match: ${etag}`)
        : result(
            'etag-304',
            'fail',
            `${brief(revalidated)} for If-None-Match: ${etag}: answer 304 when it matches`,
          ),
    ];
  });
  if (!write || !etag || head.length > 1) return head;
  const tag = etag;
  const writes = await attempt(WRITE_RULES, async () => {
    const out: RuleResult[] = [];
    const stale = await client.send(request(operation, { 'If-Match': '"surety-probe-stale"' }));
    out.push(
      stale.status === 412
        ? result('stale-412', 'pass', '412 for a stale If-Match')
        : result(
            'stale-412',
            'fail',
            `${brief(stale)} for If-Match: "surety-probe-stale"${is2xx(stale) ? ' (written: a lost update)' : ''}: evaluate If-Match before writing, 412 when it does not match`,
          ),
    );
    const weak = await client.send(request(operation, { 'If-Match': weakOf(tag) }));
    out.push(
      weak.status === 412
        ? result('weak-412', 'pass', `412 for If-Match: ${weakOf(tag)}`)
        : result(
            'weak-412',
            'fail',
            `${brief(weak)} for If-Match: ${weakOf(tag)}: If-Match uses the strong comparison; a weak tag never matches`,
          ),
    );
    const isDelete = operation.method.toUpperCase() === 'DELETE';
    const proceed = async () => {
      const fresh = await client.send(request(read, {}, undefined));
      const currentTag = fresh.headers.etag ?? tag;
      if (currentTag.startsWith('W/'))
        return result('current-proceeds', 'not-applicable', 'the ETag is weak: no If-Match can match it');
      const ok = await client.send(request(operation, { 'If-Match': currentTag }));
      return is2xx(ok)
        ? result('current-proceeds', 'pass', `${ok.status} for If-Match: ${currentTag}`)
        : result(
            'current-proceeds',
            'fail',
            `${brief(ok)} for the current If-Match: ${currentTag}: it matches, so proceed`,
          );
    };
    if (!isDelete) out.push(await proceed());
    const none = await client.send(request(operation));
    out.push(
      none.status === 428
        ? result('missing-428', 'pass', '428 without If-Match')
        : is2xx(none)
          ? result(
              'missing-428',
              'not-applicable',
              `${none.status} without If-Match: a precondition is optional here`,
            )
          : result(
              'missing-428',
              'fail',
              `${brief(none)} without If-Match: answer 428 where one is required`,
            ),
    );
    if (isDelete) {
      out.push(
        none.status === 428
          ? await proceed()
          : result(
              'current-proceeds',
              'inconclusive',
              'the DELETE without If-Match removed the resource first',
            ),
      );
    }
    const order = new Map(WRITE_RULES.map((id, i) => [id, i]));
    return out.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  });
  return [...head, ...writes];
}
