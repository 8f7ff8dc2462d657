import type { Body } from './body.js';
import { type HeaderPairs, toPairs } from './header-pairs.js';
import type { FetchInput, SuretyRequestInit } from './options.js';

/** A call's input taken apart: URL, header pairs (a copy the call may add to), method, signal, body. */
export interface ReadInput {
  url: string;
  pairs: HeaderPairs;
  method: string | undefined;
  signal: AbortSignal | null;
  body: Body | null | undefined;
}

function isRequest(input: FetchInput): input is Request {
  return typeof input === 'object' && !(input instanceof URL) && typeof (input as Request).url === 'string';
}

/**
 * The parts of `fetch(input, init)`; a promise only for a `Request` with a body (read once here so it
 * can be replayed), so the common call awaits nothing.
 */
export function readInput(
  input: FetchInput,
  init: SuretyRequestInit | undefined,
): ReadInput | Promise<ReadInput> {
  const method = init?.method;
  const signal = init?.signal ?? null;
  const body = init?.body;
  if (typeof input === 'string') return { url: input, pairs: toPairs(init?.headers), method, signal, body };
  if (input instanceof URL) return { url: input.href, pairs: toPairs(init?.headers), method, signal, body };
  if (isRequest(input)) {
    // A Request (the global one of Node 20 is not undici 7's): take it apart into url and init.
    const read: ReadInput = {
      url: input.url,
      pairs: toPairs(init?.headers ?? input.headers),
      method: method ?? input.method,
      signal: signal ?? input.signal,
      body,
    };
    if (body !== undefined || input.body === null) return read;
    return input.arrayBuffer().then((buffer) => {
      read.body = new Uint8Array(buffer);
      return read;
    });
  }
  return { url: String(input), pairs: toPairs(init?.headers), method, signal, body };
}
