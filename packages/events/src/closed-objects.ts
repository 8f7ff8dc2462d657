import { isObject, type JsonSchema } from './json-schema.js';

const hasObjectType = (s: JsonSchema): boolean =>
  s.type === 'object' || (Array.isArray(s.type) && s.type.includes('object'));

/**
 * A copy of `schema` in which every object schema that lists `properties` and says nothing about
 * extra keys gets `additionalProperties: false`.
 *
 * Why: the published document leaves objects open, so consumers must tolerate new fields (adding an
 * optional field stays additive). The publisher, though, must not send a field the document does
 * not describe, or the document drifts from what is sent. So validation is closed, publication open.
 * Subschemas under `allOf` / `anyOf` / `oneOf` are left alone: closing one branch of a composition
 * would reject the properties declared by the other branches.
 */
export function closeObjects(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...schema };
  if (
    hasObjectType(out) &&
    isObject(out.properties) &&
    out.additionalProperties === undefined &&
    out.patternProperties === undefined &&
    out.unevaluatedProperties === undefined
  ) {
    out.additionalProperties = false;
  }
  if (isObject(out.properties)) {
    out.properties = Object.fromEntries(
      Object.entries(out.properties).map(([k, v]) => [k, isObject(v) ? closeObjects(v) : v]),
    );
  }
  for (const key of ['items', 'additionalProperties', 'additionalItems', 'contains'] as const) {
    const v = out[key];
    if (isObject(v)) out[key] = closeObjects(v);
  }
  if (Array.isArray(out.items)) out.items = out.items.map((v) => (isObject(v) ? closeObjects(v) : v));
  return out;
}
