import type { ErrorObject } from 'ajv';
import type { EventIssue } from './errors.js';
import { pointerSegment } from './json-schema.js';

/** ajv's errors as JSON pointers into the value, one per failing place, with a short message. */
export function toIssues(errors: readonly ErrorObject[] | null | undefined, max = 50): EventIssue[] {
  const out: EventIssue[] = [];
  const seen = new Set<string>();
  for (const e of errors ?? []) {
    let path = e.instancePath;
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required') {
      path += `/${pointerSegment(String(e.params.missingProperty))}`;
      message = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      path += `/${pointerSegment(String(e.params.additionalProperty))}`;
      message = 'is not in the schema of this event type';
    } else if (e.keyword === 'enum') {
      message = `must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    } else if (e.keyword === 'const') {
      message = `must be ${JSON.stringify(e.params.allowedValue)}`;
    }
    const key = `${path}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ path, message });
    if (out.length >= max) break;
  }
  return out;
}
