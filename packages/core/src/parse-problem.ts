/**
 * A problem+json body as read back from the wire: the members every Surety problem carries, and
 * whatever extension members it has.
 */
export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  instance?: string;
  [extension: string]: unknown;
}

/**
 * True for a value with the members of a Surety problem (`type`, `title`, `detail` and `code`
 * strings, an integer `status` of 400-599, `instance` a string when present).
 * @example if (isProblemDocument(body)) console.log(body.code);
 */
export function isProblemDocument(value: unknown): value is ProblemDocument {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.type === 'string' &&
    typeof v.title === 'string' &&
    typeof v.detail === 'string' &&
    typeof v.code === 'string' &&
    Number.isInteger(v.status) &&
    (v.status as number) >= 400 &&
    (v.status as number) <= 599 &&
    (v.instance === undefined || typeof v.instance === 'string')
  );
}

/**
 * Reads a problem+json body; undefined for text that is not JSON or not a Surety problem. Never throws:
 * the text usually comes from another service.
 * @example parseProblem(await response.text())?.code // 'idempotency_key_in_use'
 */
export function parseProblem(text: string): ProblemDocument | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return isProblemDocument(value) ? value : undefined;
}
