// Preloaded (node --import) into a spawned `surety serve` by processes.test.ts: the delivery
// worker's start, which opens its LISTEN connection after the server already listens (slow on a
// loaded cluster), is held for SLOW_WORKER_START_MS, so that a request can be in flight and a
// SIGTERM arrive before start-up has finished. It says on stderr when it holds and releases.
import { DeliveryWorker } from '@surety/webhooks';

const ms = Number(process.env.SLOW_WORKER_START_MS ?? 3000);
const start = DeliveryWorker.prototype.start;
DeliveryWorker.prototype.start = async function (this: DeliveryWorker) {
  process.stderr.write('test: worker start held\n');
  await new Promise((resolve) => setTimeout(resolve, ms));
  process.stderr.write('test: worker start released\n');
  return start.call(this);
};
