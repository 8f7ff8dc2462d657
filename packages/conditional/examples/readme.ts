import { evaluatePreconditions, versionETag } from '@surety/conditional';

// The stored row is at version 7; its ETag is derived from the version.
const current = { exists: true, etag: versionETag(7) };

for (const ifMatch of [versionETag(7), versionETag(6)]) {
  const result = evaluatePreconditions({
    method: 'PATCH',
    headers: { 'if-match': ifMatch },
    current,
    require: true, // no If-Match at all → 428
  });
  // kind 'proceed': run `update … where id = $1 and version = 7`; otherwise answer result.status (412 here)
  console.log(ifMatch, result.kind, result.kind === 'proceed' ? '' : result.status);
}
console.log(evaluatePreconditions({ method: 'PATCH', headers: {}, current, require: true }).kind);
