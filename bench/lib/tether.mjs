// Loaded with `--import` into every process a benchmark starts (bench/lib/tether.ts): the process ends
// as soon as the one that started it is gone, even when that one was SIGKILLed (`timeout`, run.ts's time
// limit) and could not stop its children. The parent's end of the child's stdin pipe, or of its IPC
// channel (fork), closes with the parent; the child sees that and exits. A child whose stdin is not a
// pipe (a terminal, /dev/null) and that has no IPC channel is left as it is.
import { fstatSync } from 'node:fs';

const gone = () => process.exit(129);
if (process.connected) {
  process.on('disconnect', gone);
} else {
  let stdin;
  try {
    stdin = fstatSync(0);
  } catch {
    stdin = undefined;
  }
  if (stdin && (stdin.isFIFO() || stdin.isSocket())) {
    process.stdin.on('end', gone);
    process.stdin.on('error', gone);
    process.stdin.on('data', () => {});
    // Reading stdin must not keep a process alive that would otherwise have ended.
    process.stdin.unref();
  }
}
