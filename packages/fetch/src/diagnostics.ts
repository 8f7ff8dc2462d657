import diagnosticsChannel from 'node:diagnostics_channel';

/**
 * The `node:diagnostics_channel` channels this package publishes on, in undici's naming style. Messages
 * are only built when a channel has subscribers, so an unobserved client pays nothing.
 *
 * - `surety:fetch:attempt`: `{ url, method, attempt, timeoutMs }` before each attempt is sent.
 * - `surety:fetch:retry`: a `RetryEvent`, when a failed attempt will be retried.
 * - `surety:fetch:giveUp`: a `GiveUpEvent`, when a retryable failure is returned without a retry.
 * - `surety:fetch:circuit`: `{ origin, state, previous }` when a circuit breaker changes state.
 * @example
 * import diagnosticsChannel from 'node:diagnostics_channel';
 * diagnosticsChannel.subscribe(CHANNELS.retry, (event) => console.log('retry', event));
 */
export const CHANNELS = {
  attempt: 'surety:fetch:attempt',
  retry: 'surety:fetch:retry',
  giveUp: 'surety:fetch:giveUp',
  circuit: 'surety:fetch:circuit',
} as const;

export const attemptChannel = diagnosticsChannel.channel(CHANNELS.attempt);
export const retryChannel = diagnosticsChannel.channel(CHANNELS.retry);
export const giveUpChannel = diagnosticsChannel.channel(CHANNELS.giveUp);
export const circuitChannel = diagnosticsChannel.channel(CHANNELS.circuit);
