// Bodies of failed attempts up to this size are read to the end so the connection can be reused; larger
// (or unsized) ones are cancelled, which costs the connection but never waits on a slow body.
const DRAIN_LIMIT = 64 * 1024;

/** Throws away the body of a failed attempt's response before the retry, never failing the call. */
export async function discard(response: Response): Promise<void> {
  if (response.body === null) return;
  try {
    const length = Number(response.headers.get('content-length') ?? Number.NaN);
    if (length <= DRAIN_LIMIT) await response.arrayBuffer();
    else await response.body.cancel();
  } catch {
    // The body of a response we are throwing away: its errors are not the caller's.
  }
}
