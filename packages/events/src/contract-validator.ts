import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { EventError } from './errors.js';
import type { ValidationResult } from './event-definition.js';
import { toIssues } from './issues.js';
import { isObject } from './json-schema.js';

const addFormats = addFormatsModule.default;

/**
 * A checker of whole webhook bodies against an AsyncAPI document's message payloads: what a
 * consumer, or an end-to-end test, uses to prove that what was delivered is what was documented.
 * Payload schemas are compiled on first use. Errors point into the body (`/data/items/0/sku`).
 * @example
 * const check = contractValidator(await (await fetch(`${base}/asyncapi.json`)).json());
 * const r = check(JSON.parse(rawBody));
 * assert.ok(r.ok, r.ok ? '' : JSON.stringify(r.error.errors));
 */
export function contractValidator(doc: unknown): (body: unknown) => ValidationResult {
  // Not strict: a document may carry keywords of the AsyncAPI schema format that ajv does not know.
  const ajv = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true });
  addFormats(ajv, ['date-time', 'date', 'time', 'email', 'uri', 'uuid']);
  const messages =
    isObject(doc) && isObject(doc.components) && isObject(doc.components.messages)
      ? doc.components.messages
      : {};
  const payloads = new Map<string, unknown>();
  for (const [key, m] of Object.entries(messages)) {
    if (isObject(m)) payloads.set(typeof m.name === 'string' ? m.name : key, m.payload);
  }
  const compiled = new Map<string, ValidateFunction>();
  return (body) => {
    const type = isObject(body) && typeof body.type === 'string' ? body.type : undefined;
    const schema = type === undefined ? undefined : payloads.get(type);
    if (type === undefined || !isObject(schema)) {
      return {
        kind: 'invalid',
        ok: false,
        error: new EventError(
          'SURETY_EVENT_UNKNOWN_TYPE',
          `the document has no message for event type ${JSON.stringify(type)}`,
          [{ path: '/type', message: 'is not a documented event type' }],
        ),
      };
    }
    let validate = compiled.get(type);
    if (validate === undefined) {
      validate = ajv.compile(schema);
      compiled.set(type, validate);
    }
    if (validate(body)) return { kind: 'valid', ok: true };
    const errors = toIssues(validate.errors);
    return {
      kind: 'invalid',
      ok: false,
      error: new EventError(
        'SURETY_EVENT_INVALID_PAYLOAD',
        `the ${type} body does not match the document`,
        errors,
      ),
    };
  };
}
