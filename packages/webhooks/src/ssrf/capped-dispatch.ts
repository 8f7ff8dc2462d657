// One request through a dispatcher's handler API, its answer read up to a cap. undici's `request`
// wraps every answer in a Readable body stream, a promise and an AsyncResource, and the attempt then
// read that stream back: ~10 µs of CPU per POST and ~2.4 KB of heap per delivery, for a body that is
// usually empty (issue 35; docs/decisions.md, "Session 17"). The handler gets the status, the
// headers and each chunk directly; what it keeps and when it gives up are the same as before.
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';

/** The answer: status, headers and at most `max` bytes of the body, decoded. */
export interface CappedAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body's first `max` bytes as UTF-8 (invalid bytes and a character cut by the cap: U+FFFD). */
  bodyExcerpt: string;
  /** True when the body was longer than `max`: the rest was never read and the connection closed. */
  truncated: boolean;
}

// Decoding without `stream` keeps no state between calls: one decoder serves every attempt.
const decoder = new TextDecoder();

/**
 * Dispatches `options` and resolves with the answer once its body ended or reached `max` bytes;
 * rejects with undici's error (connect, headers or body timeout, socket closed mid-answer) or with
 * `signal`'s reason once it aborts. Like undici's `request`, an abort before the request reaches a
 * connection takes effect when it does (the connect timeout bounds the wait).
 */
export function dispatchCapped(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  signal: AbortSignal,
  max: number,
): Promise<CappedAnswer> {
  return new Promise((resolve, reject) => {
    let status = 0;
    let headers: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    let controller: Dispatcher.DispatchController | undefined;
    const onAbort = () => controller?.abort(signal.reason);
    const settle = () => {
      done = true;
      signal.removeEventListener('abort', onAbort);
    };
    const answer = (truncated: boolean): CappedAnswer => ({
      status,
      headers,
      bodyExcerpt:
        size === 0 ? '' : decoder.decode(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)),
      truncated,
    });
    signal.addEventListener('abort', onAbort);
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        if (signal.aborted) c.abort(signal.reason);
      },
      onResponseStart(_c, statusCode, responseHeaders) {
        status = statusCode;
        headers = responseHeaders;
      },
      onResponseData(c, chunk) {
        if (done) return;
        if (size + chunk.length <= max) {
          chunks.push(chunk);
          size += chunk.length;
          return;
        }
        chunks.push(chunk.subarray(0, max - size));
        size = max;
        settle();
        resolve(answer(true));
        // Not read further: undici closes the connection rather than drain the rest.
        c.abort(new Error('response body over the cap'));
      },
      onResponseEnd() {
        if (done) return;
        settle();
        resolve(answer(false));
      },
      // After the answer was taken (the abort above is one), nobody is left to tell.
      onResponseError(_c, error) {
        if (done) return;
        settle();
        reject(error);
      },
    };
    try {
      dispatcher.dispatch(options, handler);
    } catch (error) {
      // undici's dispatchers report even bad options through onResponseError; another may throw.
      settle();
      reject(error);
    }
  });
}
