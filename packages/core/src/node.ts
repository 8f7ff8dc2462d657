// The shared helpers that need Node's built-ins (node:crypto), apart from the main entry, which stays
// runtime-neutral: @surety/webhook-verify imports it and runs on Web Crypto runtimes as well.
import { createHash } from 'node:crypto';

/** An idempotency key as a span may show it: the first 16 hex digits of its SHA-256. */
export const hashKey = (key: string): string => createHash('sha256').update(key).digest('hex').slice(0, 16);

/** Where a command-line tool writes: one line of text at a time to its output and its error stream. */
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** The process's own stdout and stderr, a line each call (the CLIs' default `CliIo`). */
export const stdio: CliIo = {
  out: (t) => process.stdout.write(`${t}\n`),
  err: (t) => process.stderr.write(`${t}\n`),
};
