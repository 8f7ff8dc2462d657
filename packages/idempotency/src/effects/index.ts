export type { EffectContext, EffectDefinition, EffectFailure } from './define.js';
export { defineEffect } from './define.js';
export type { EffectRecord, EffectsOptions, EnqueueInput } from './outbox.js';
export { createEffects, Effects } from './outbox.js';
export type { EffectRetryOptions, RetryDecision, RetryInput } from './policy.js';
export { decideRetry, EFFECT_RETRY_DEFAULTS } from './policy.js';
export type { EffectOutcome, EffectWorker, EffectWorkerOptions } from './worker.js';
