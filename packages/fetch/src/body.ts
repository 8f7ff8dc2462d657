import { FormData as UndiciFormData, Response as UndiciResponse } from 'undici';

/** A request body as `fetch` accepts it, plus the async iterables undici accepts. */
export type Body = NonNullable<RequestInit['body']> | AsyncIterable<Uint8Array>;

/** A body prepared for the attempts of one call: every attempt sends `factory()` if set, else `body`. */
export interface PreparedBody {
  body: Body | null | undefined;
  factory: (() => Body) | undefined;
  /** Whether a second attempt can send the same bytes. */
  replayable: boolean;
  /** A content-type that must be sent with the bytes (a serialised FormData's boundary). */
  contentType: string | undefined;
}

// Most calls have no body: one shared answer instead of an allocation per call.
const NO_BODY: PreparedBody = {
  body: undefined,
  factory: undefined,
  replayable: true,
  contentType: undefined,
};

/**
 * Whether every attempt can send the same bytes from `body` unchanged: strings, byte buffers, Blobs and
 * URLSearchParams can; streams and async iterables are consumed by the first attempt and cannot.
 */
function isReplayable(body: unknown): boolean {
  if (body == null || typeof body === 'string') return true;
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return true;
  if (body instanceof URLSearchParams) return true;
  const tag = (body as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag];
  return tag === 'Blob' || tag === 'File';
}

function isFormData(body: unknown): body is FormData {
  return (body as { [Symbol.toStringTag]?: unknown } | null)?.[Symbol.toStringTag] === 'FormData';
}

/**
 * Gets a call's body ready for retries. A `factory` makes any body replayable: it is called for every
 * attempt. FormData is serialised once when the call may be retried (see `serialiseFormData`).
 */
export function prepareBody(
  body: Body | null | undefined,
  factory: (() => Body) | undefined,
  mayRetry: boolean,
): PreparedBody | Promise<PreparedBody> {
  if (factory) return { body: undefined, factory, replayable: true, contentType: undefined };
  if (body == null) return NO_BODY;
  if (isFormData(body)) {
    const own = toUndiciFormData(body);
    if (mayRetry) return serialiseFormData(own);
    return { body: own as unknown as Body, factory: undefined, replayable: false, contentType: undefined };
  }
  return { body, factory: undefined, replayable: isReplayable(body), contentType: undefined };
}

/**
 * undici 7 recognises only its own FormData class: Node 20's global FormData (from the undici bundled in
 * Node) would be sent as the text "[object FormData]". Copying the entries across fixes that.
 */
function toUndiciFormData(body: FormData): UndiciFormData {
  if (body instanceof UndiciFormData) return body;
  const own = new UndiciFormData();
  body.forEach((value, name) => {
    own.append(name, value as never);
  });
  return own;
}

/**
 * Serialises a FormData once, because every serialisation picks a new multipart boundary: replaying it
 * as-is would send different bytes on each attempt, and a server fingerprinting the body for its
 * Idempotency-Key would answer 422 to the retry.
 */
async function serialiseFormData(body: UndiciFormData): Promise<PreparedBody> {
  const serialised = new UndiciResponse(body);
  const bytes = new Uint8Array(await serialised.arrayBuffer());
  const contentType = serialised.headers.get('content-type');
  return { body: bytes, factory: undefined, replayable: true, contentType: contentType ?? undefined };
}
