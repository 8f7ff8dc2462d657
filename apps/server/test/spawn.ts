import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface ServerProcess {
  url: string;
  process: ChildProcess;
  /** Resolves with the exit code (or -1 for a signal). */
  exited: Promise<number>;
  output: () => string;
  kill(signal?: NodeJS.Signals): Promise<number>;
}

const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const entry = fileURLToPath(new URL('../src/entry.ts', import.meta.url));

/**
 * Starts `surety serve` in a child process on 127.0.0.1, port 0, and waits for its address (or runs
 * `command` and waits for `ready` in its output; `url` is then the pattern's first group or '').
 */
export function spawnServer(options: {
  schema: string;
  apiKeys: string;
  env?: Record<string, string>;
  timeoutMs?: number;
  /** The entry to run: src/cli.ts, or src/entry.ts (the command's own, which starts tracing first). @default 'cli' */
  entry?: 'cli' | 'entry';
  /** Modules the child preloads (node --import) after tsx, before the entry: test faults. */
  imports?: string[];
  /** @default 'serve' */
  command?: 'serve' | 'worker';
  /** @default the line Fastify logs once listening, its address the first group */
  ready?: RegExp;
}): Promise<ServerProcess> {
  const script = options.entry === 'entry' ? entry : cli;
  const preload = (options.imports ?? []).flatMap((m) => ['--import', m]);
  const args = [
    '--conditions=@surety/source',
    '--import',
    'tsx',
    ...preload,
    script,
    options.command ?? 'serve',
  ];
  const child = spawn(process.execPath, args, {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      SURETY_SCHEMA: options.schema,
      SURETY_API_KEYS: options.apiKeys,
      LOG_LEVEL: 'info',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start in time:\n${out}`));
    }, options.timeoutMs ?? 90_000); // only a hang: start-up took up to 7 s with test files running side by side
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = (options.ready ?? /Server listening at (http:\/\/127\.0\.0\.1:\d+)/).exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({
          url: match[1] ?? '',
          process: child,
          exited,
          output: () => out,
          kill(signal = 'SIGKILL') {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal);
            return exited;
          },
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${out}`));
    });
  });
}
