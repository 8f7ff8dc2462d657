// Node arguments that tie a benchmark's child process to its parent (bench/lib/tether.mjs): put them
// before the script, and give the child a stdin pipe (`stdio: ['pipe', …]`) or an IPC channel (fork).
import { fileURLToPath } from 'node:url';

export const TETHER_ARGS: readonly string[] = [
  '--import',
  fileURLToPath(new URL('./tether.mjs', import.meta.url)),
];
