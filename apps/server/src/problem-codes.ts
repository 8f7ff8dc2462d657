/**
 * Every stable `code` the service answers with, its status and what it means to a client: the one
 * list the API document draws each route's possible codes from (openapi-operation.ts). A route that
 * names a code in `config.problems` which is not here is refused when it is registered, so a new
 * code is documented before it can be sent.
 */
export interface ProblemCode {
  status: number;
  meaning: string;
}

export const PROBLEM_CODES = {
  validation_failed: {
    status: 400,
    meaning: 'the body, query or a path parameter does not match the schema (`errors` says where)',
  },
  invalid_json: { status: 400, meaning: 'the body is not UTF-8 JSON, or is empty' },
  invalid_content_length: { status: 400, meaning: 'Content-Length does not match the body' },
  invalid_character: {
    status: 400,
    meaning: 'a string PostgreSQL cannot store (NUL, a lone surrogate) in the body, query, path or a header',
  },
  invalid_url: { status: 400, meaning: 'the path or query string is not percent-encoded UTF-8' },
  invalid_cursor: { status: 400, meaning: 'the cursor is not one this API returned' },
  date_out_of_range: { status: 400, meaning: 'a date-time PostgreSQL cannot store (year 0000, past 9999)' },
  idempotency_key_missing: {
    status: 400,
    meaning: 'this route requires an Idempotency-Key and none was sent; nothing was done',
  },
  idempotency_key_invalid: {
    status: 400,
    meaning: 'the Idempotency-Key is empty, sent twice, longer than 255 or not visible ASCII',
  },
  malformed_precondition: {
    status: 400,
    meaning: 'If-Match or If-None-Match is not a list of entity tags; nothing was evaluated',
  },
  invalid_webhook_url: {
    status: 400,
    meaning: 'the URL is not https (or allowed http), or names a private, loopback or metadata address',
  },
  invalid_frame_ancestor: {
    status: 400,
    meaning: 'an origin in frameAncestors is not https://host[:port] (`errors` says which and why)',
  },
  unauthorized: { status: 401, meaning: 'no API key, or not a valid one (see WWW-Authenticate)' },
  portal_session_expired: {
    status: 401,
    meaning: 'the portal session has expired: the tenant must open a new one',
  },
  portal_session_revoked: {
    status: 401,
    meaning: 'the portal session was revoked: the tenant must open a new one',
  },
  portal_forbidden: { status: 403, meaning: 'a portal token cannot call this route; use an API key' },
  portal_read_only: { status: 403, meaning: 'the portal session is read-only: it cannot change anything' },
  reserved_event_type: {
    status: 403,
    meaning:
      'an operational event type (endpoint.*, delivery.failed, webhook.test): only the service publishes it',
  },
  service_event_type: { status: 403, meaning: "the service's own event types cannot be changed" },
  not_found: { status: 404, meaning: 'no such resource for this tenant' },
  idempotency_key_in_use: {
    status: 409,
    meaning: 'a request with this Idempotency-Key is still running; retry after Retry-After seconds',
  },
  version_conflict: {
    status: 409,
    meaning: 'another request changed the resource while this one ran (no If-Match was sent); GET and retry',
  },
  out_of_stock: {
    status: 409,
    meaning: 'fewer units are in stock than requested (`available`, `requested`)',
  },
  order_shipped: { status: 409, meaning: 'the items of a shipped order cannot change' },
  order_already_shipped: { status: 409, meaning: 'the order was shipped already' },
  endpoint_disabled: { status: 409, meaning: 'the endpoint is disabled: enable it first' },
  not_a_poll_endpoint: {
    status: 409,
    meaning: 'the endpoint is delivered to (webhook, amqp, nats, mqtt), not read: only a poll endpoint is',
  },
  endpoint_limit_reached: { status: 409, meaning: 'the tenant has the most endpoints allowed' },
  application_uid_taken: {
    status: 409,
    meaning: 'another application of the tenant has this uid (`uid`); uids are unique per tenant',
  },
  event_type_exists: {
    status: 409,
    meaning: "the event type name is taken (by the service's catalogue or one of yours)",
  },
  event_type_limit_reached: { status: 409, meaning: 'the tenant has the most event types allowed' },
  breaking_change: {
    status: 409,
    meaning:
      "the new schema is incompatible under the type's compatibility mode (`changes`); publish a new name (order.shipped.v2)",
  },
  schema_version_limit: {
    status: 409,
    meaning: 'the event type has had the most schema versions allowed; register a new name',
  },
  precondition_failed: {
    status: 412,
    meaning: 'the ETag in If-Match is not the current one (or If-None-Match: * and it exists); GET it again',
  },
  body_too_large: { status: 413, meaning: 'the body is larger than the limit' },
  unsupported_media_type: { status: 415, meaning: 'the body is not application/json' },
  idempotency_key_reused: {
    status: 422,
    meaning: 'the Idempotency-Key was used with another method, path or body; use a new key',
  },
  invalid_webhook_headers: {
    status: 422,
    meaning:
      "an endpoint's custom headers cannot be sent: a reserved name, not a token, a control character in a value, too many or too long (`errors`)",
  },
  invalid_webhook_filter: {
    status: 422,
    meaning:
      "an endpoint's filter is outside the language or its bounds: an unknown operator, a path outside type/resource/data, too deep, too wide or too large (`errors`)",
  },
  invalid_webhook_auth: {
    status: 422,
    meaning:
      "an endpoint's receiver authentication cannot be used: a missing or overlong field, a token URL the SSRF rules refuse, a PEM that does not parse, a key that is encrypted or does not match the certificate, an expired certificate, auth on a broker endpoint (`errors`)",
  },
  invalid_event: {
    status: 422,
    meaning: "the event type is unknown, or the payload does not match the type's schema (`errors`)",
  },
  application_uid_reserved: {
    status: 422,
    meaning: 'a uid may not start with app_, the prefix of application ids',
  },
  unknown_application: {
    status: 422,
    meaning: 'the application named in the body (`applicationId`, `application`) is not one of the tenant’s',
  },
  invalid_event_schema: {
    status: 422,
    meaning: 'the schema is not a draft-07 JSON Schema the service accepts (`errors` says where and why)',
  },
  invalid_event_example: { status: 422, meaning: 'an example does not match the schema (`errors`)' },
  schema_too_costly: {
    status: 422,
    meaning:
      "the schema could make validation slow: its static cost is over the bound (`errors`), or compiling it or validating this payload ran past the worker's time or memory limit; nothing was changed",
  },
  precondition_required: { status: 428, meaning: 'this write requires If-Match (or If-None-Match: *)' },
  too_many_polls: {
    status: 429,
    meaning:
      "the tenant's long-polls waiting at once are at their cap; retry after Retry-After, or poll without wait",
  },
  validation_busy: {
    status: 503,
    meaning:
      "too many of the tenant's schema compilations and validations are waiting; nothing was changed (retry after Retry-After)",
  },
  database_unavailable: {
    status: 503,
    meaning: 'the database cannot be reached; nothing was changed (retry after Retry-After)',
  },
  idempotency_store_unavailable: {
    status: 503,
    meaning: 'the idempotency store cannot be reached; nothing was done (retry with the same key)',
  },
} as const satisfies Record<string, ProblemCode>;

export type ProblemCodeName = keyof typeof PROBLEM_CODES;

export const isProblemCode = (code: string): code is ProblemCodeName => Object.hasOwn(PROBLEM_CODES, code);
