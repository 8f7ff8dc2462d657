import type { Readable } from 'node:stream';

/**
 * Reads a Node stream to one Buffer, up to `limit` bytes. Over the limit it stops listening and
 * pauses the stream without destroying it, so the 413 can still be written (with
 * `connection: close`, which drops the rest).
 */
export function readBody(stream: Readable, limit: number): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const cleanup = () => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
    };
    const onData = (chunk: Buffer | string) => {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      length += buffer.length;
      if (length > limit) {
        cleanup();
        stream.pause();
        resolve('too-large');
        return;
      }
      chunks.push(buffer);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, length));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
  });
}

/** True when a `content-length` header already says the body is over the limit. */
export function declaredTooLarge(contentLength: string | undefined, limit: number): boolean {
  return contentLength !== undefined && /^\d+$/.test(contentLength) && Number(contentLength) > limit;
}
