import diagnosticsChannel from 'node:diagnostics_channel';

/**
 * The `node:diagnostics_channel` channels this package publishes on (`surety:<package>:<event>`, as
 * `@surety/fetch` does). Each carries what the matching callback option is told, so a subscriber sees
 * every engine and every worker of the process without passing an option to each. Messages are only
 * built when a channel has subscribers (or the callback is set). The README has the table.
 *
 * - `surety:idempotency:outcome`: `{ outcome, tenant }` once per keyed request through an adapter
 *   (the adapters' `onOutcome`; `outcome` is an `AdapterOutcome`).
 * - `surety:idempotency:stored`: a `StoredInfo` after a response is stored with its key (`onStored`).
 * - `surety:idempotency:warning`: an `IdempotencyWarning` (`onWarning`; only while
 *   `warnOnEmptyTransaction` is on).
 * - `surety:idempotency:effect`: an `EffectOutcome` per effect attempt of the outbox worker (`onOutcome`).
 * @example
 * import diagnosticsChannel from 'node:diagnostics_channel';
 * diagnosticsChannel.subscribe(CHANNELS.outcome, (m) => metrics.count(m.outcome));
 */
export const CHANNELS = {
  outcome: 'surety:idempotency:outcome',
  stored: 'surety:idempotency:stored',
  warning: 'surety:idempotency:warning',
  effect: 'surety:idempotency:effect',
} as const;

export const outcomeChannel = diagnosticsChannel.channel(CHANNELS.outcome);
export const storedChannel = diagnosticsChannel.channel(CHANNELS.stored);
export const warningChannel = diagnosticsChannel.channel(CHANNELS.warning);
export const effectChannel = diagnosticsChannel.channel(CHANNELS.effect);
