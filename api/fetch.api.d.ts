// The public API of @surety/fetch: what each entry point exports (scripts/api-report.mjs; do not edit by hand).

// ===== @surety/fetch
export declare const ATTEMPT_HEADER = "Surety-Attempt";
export declare class AttemptTimeoutError extends FetchError {
    readonly timeoutMs: number;
    readonly code: 'SURETY_ATTEMPT_TIMEOUT';
    constructor(timeoutMs: number, options?: {
        cause?: unknown;
    });
}
export interface BackoffOptions {
    baseDelayMs?: number;
    maxDelayMs?: number;
    random?: () => number;
}
export type Body = NonNullable<RequestInit['body']> | AsyncIterable<Uint8Array>;
export declare const CHANNELS: {
    readonly attempt: "surety:fetch:attempt";
    readonly retry: "surety:fetch:retry";
    readonly giveUp: "surety:fetch:giveUp";
    readonly circuit: "surety:fetch:circuit";
};
export declare class CircuitBreaker {
    #private;
    readonly consecutiveFailures: number;
    readonly failureRatio: number;
    readonly minimumRequests: number;
    readonly windowMs: number;
    readonly openMs: number;
    readonly halfOpenProbes: number;
    onStateChange: ((state: CircuitState, previous: CircuitState) => void) | undefined;
    constructor(options?: CircuitBreakerOptions);
    get state(): CircuitState;
    get retryAfterMs(): number;
    tryAcquire(): boolean;
    record(outcome: CircuitOutcome): void;
}
export interface CircuitBreakerOptions {
    consecutiveFailures?: number;
    failureRatio?: number;
    minimumRequests?: number;
    windowMs?: number;
    openMs?: number;
    halfOpenProbes?: number;
    clock?: Pick<Clock, 'now'>;
    onStateChange?: (state: CircuitState, previous: CircuitState) => void;
}
export declare class CircuitOpenError extends FetchError {
    readonly origin: string;
    readonly retryAfterMs: number;
    readonly code: 'SURETY_CIRCUIT_OPEN';
    constructor(origin: string, retryAfterMs: number);
}
export type CircuitOutcome = 'success' | 'failure' | 'ignore';
export type CircuitState = 'closed' | 'open' | 'half-open';
export interface Clock {
    now(): number;
    setTimeout(callback: () => void, ms: number): unknown;
    clearTimeout(handle: unknown): void;
}
export declare const DEADLINE_HEADER = "Surety-Timeout-Ms";
export declare const DEFAULT_ATTEMPT_TIMEOUT_MS = 10000;
export declare const DEFAULT_BASE_DELAY_MS = 200;
export declare const DEFAULT_BUDGET_MAX_TOKENS = 10;
export declare const DEFAULT_BUDGET_MIN_PER_SECOND = 1;
export declare const DEFAULT_BUDGET_RATIO = 0.1;
export declare const DEFAULT_CONNECT_TIMEOUT_MS = 5000;
export declare const DEFAULT_DEADLINE_MS = 30000;
export declare const DEFAULT_MAX_ATTEMPTS = 4;
export declare const DEFAULT_MAX_DEADLINE_MS = 300000;
export declare const DEFAULT_MAX_DELAY_MS = 5000;
export declare const DEFAULT_RETRY_METHODS: readonly string[];
export declare const DEFAULT_RETRY_STATUSES: readonly number[];
export declare class DeadlineExceededError extends FetchError {
    readonly deadlineMs: number;
    readonly code: 'SURETY_DEADLINE_EXCEEDED';
    constructor(deadlineMs: number, options?: {
        cause?: unknown;
    });
}
export interface DeadlineProblemInput {
    deadlineMs: number;
    instance?: string;
    status?: number;
}
export declare class FetchError extends Error {
    readonly code: FetchErrorCode;
    constructor(code: FetchErrorCode, message: string, options?: {
        cause?: unknown;
    });
}
export type FetchErrorCode = 'SURETY_ATTEMPT_TIMEOUT' | 'SURETY_DEADLINE_EXCEEDED' | 'SURETY_CIRCUIT_OPEN';
export type FetchInput = string | URL | Request;
export interface FetchOptions {
    maxAttempts?: number;
    deadlineMs?: number;
    attemptTimeoutMs?: number;
    connectTimeoutMs?: number;
    baseDelayMs?: number;
    maxDelayMs?: number;
    retryMethods?: readonly string[];
    retryStatuses?: readonly number[];
    idempotencyKey?: 'auto' | false;
    retryBudget?: RetryBudgetOptions | ((origin: string) => RetryBudget) | false;
    circuitBreaker?: boolean | CircuitBreakerOptions | ((origin: string) => CircuitBreaker);
    deadlineHeader?: string | false;
    attemptHeader?: string | false;
    onRetry?: (event: RetryEvent) => void;
    onGiveUp?: (event: GiveUpEvent) => void;
    dispatcher?: Dispatcher;
    transport?: Transport;
    clock?: Clock;
    wallClock?: () => number;
    random?: () => number;
}
export interface GiveUpEvent {
    url: string;
    method: string;
    attempts: number;
    reason: GiveUpReason;
    status?: number;
    error?: unknown;
}
export type GiveUpReason = 'max-attempts' | 'deadline' | 'retry-after' | 'budget' | 'circuit-open' | 'method' | 'body';
export type HeaderSource = Headers | {
    get(name: string): string | null;
} | Record<string, string | readonly string[] | undefined>;
export declare const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";
export declare const RETRYABLE_ERROR_CODES: ReadonlySet<string>;
export interface ReadDeadlineOptions {
    header?: string;
    maxMs?: number;
    reserveMs?: number;
    defaultMs?: number;
}
export declare class RetryBudget {
    #private;
    readonly ratio: number;
    readonly minPerSecond: number;
    readonly maxTokens: number;
    constructor(options?: RetryBudgetOptions);
    get tokens(): number;
    deposit(): void;
    tryWithdraw(): boolean;
}
export interface RetryBudgetOptions {
    ratio?: number;
    minPerSecond?: number;
    maxTokens?: number;
    clock?: Pick<Clock, 'now'>;
}
export interface RetryEvent {
    url: string;
    method: string;
    attempt: number;
    delayMs: number;
    status?: number;
    error?: unknown;
    retryAfterMs?: number;
    idempotencyKey?: string;
}
export interface SuretyFetch {
    (input: FetchInput, init?: SuretyRequestInit): Promise<Response>;
    budgetFor(origin: string): RetryBudget | undefined;
    breakerFor(origin: string): CircuitBreaker | undefined;
    readonly dispatcher: Dispatcher;
    close(): Promise<void>;
}
export interface SuretyRequestInit extends Omit<RequestInit, 'body' | 'dispatcher'> {
    body?: Body | null;
    idempotencyKey?: 'auto' | false | (string & {});
    deadlineMs?: number;
    maxAttempts?: number;
    bodyFactory?: () => Body;
    dispatcher?: Dispatcher;
    duplex?: 'half';
}
export type Transport = (url: string, init: TransportInit) => Promise<Response>;
export type TransportInit = RequestInit & {
    dispatcher?: Dispatcher;
    duplex?: 'half';
};
export declare function createFetch(options?: FetchOptions): SuretyFetch;
export declare function deadlineProblem(input: DeadlineProblemInput): string;
export declare function deadlineSignal(headers: HeaderSource, options?: ReadDeadlineOptions): AbortSignal | undefined;
export declare function fullJitter(retry: number, options?: BackoffOptions): number;
export declare const isAttemptTimeoutError: (value: unknown) => value is AttemptTimeoutError;
export declare const isCircuitOpenError: (value: unknown) => value is CircuitOpenError;
export declare const isDeadlineExceededError: (value: unknown) => value is DeadlineExceededError;
export declare const isFetchError: (value: unknown) => value is FetchError;
export declare function isOriginFailure(outcome: number | unknown): boolean;
export declare function isRetryableError(error: unknown): boolean;
export { parseRetryAfter } from "@surety/core";
export declare function readDeadline(headers: HeaderSource, options?: ReadDeadlineOptions): number | undefined;
export declare function sleep(clock: Clock, ms: number, options?: {
    signal?: AbortSignal | null;
}): Promise<void>;
export declare const systemClock: Clock;

// ===== @surety/fetch/server
export { DEFAULT_MAX_DEADLINE_MS }; // as in @surety/fetch
export { DeadlineProblemInput }; // as in @surety/fetch
export { HeaderSource }; // as in @surety/fetch
export { PROBLEM_CONTENT_TYPE } from "@surety/core";
export { ReadDeadlineOptions }; // as in @surety/fetch
export { deadlineProblem }; // as in @surety/fetch
export { deadlineSignal }; // as in @surety/fetch
export { readDeadline }; // as in @surety/fetch

// ===== @surety/fetch/fastify
export interface FastifyDeadlineOptions extends ReadDeadlineOptions {
    status?: 503 | 504;
    clock?: Clock;
}
export interface RequestDeadline {
    readonly signal: AbortSignal;
    readonly budgetMs: number;
    remaining(): number;
}
export declare const deadline: FastifyPluginAsync<FastifyDeadlineOptions>;
export { deadline as default }; // as in @surety/fetch/fastify

// ===== @surety/fetch/testing
export interface FakeClock extends Clock {
    advance(ms: number): void;
    readonly pending: number;
    wallNow(): number;
}
export declare function createFakeClock(options?: {
    start?: number;
    epoch?: number;
    autoAdvance?: boolean;
}): FakeClock;
export declare function sequenceRandom(values: readonly number[]): () => number;
