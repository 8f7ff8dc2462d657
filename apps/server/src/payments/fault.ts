// A fault hook for the chaos tests (test/faults/payments-chaos.test.ts): SURETY_FAULT_KILL_AT=<step>
// or <step>:<n> SIGKILLs this process the n-th time (default the first) a payment reaches the
// named step: `before-charge` (created, not charged), `after-charge` (the provider answered, the
// answer not recorded), `after-record` (settled and committed, the answer not stored or sent).
// Unset (always, outside tests) it does nothing.

export type FaultStep = 'before-charge' | 'after-charge' | 'after-record';

const spec = /^(before-charge|after-charge|after-record)(?::([1-9][0-9]{0,5}))?$/.exec(
  process.env.SURETY_FAULT_KILL_AT ?? '',
);
let remaining = spec ? Number(spec[2] ?? 1) : 0;

export function faultPoint(step: FaultStep): void {
  if (!spec || spec[1] !== step) return;
  if (--remaining === 0) process.kill(process.pid, 'SIGKILL');
}
