// The public API of @surety/fetch (scripts/api-report.mjs; do not edit by hand).

// ===== . → ./dist/index.d.ts
// --- dist/index.d.ts
export { parseRetryAfter } from "@surety/core";
export type { BackoffOptions } from "./backoff.js";
export { DEFAULT_BASE_DELAY, DEFAULT_BASE_DELAY_MS, DEFAULT_MAX_DELAY, DEFAULT_MAX_DELAY_MS, fullJitter, } from "./backoff.js";
export type { Body } from "./body.js";
export type { RetryBudgetOptions } from "./budget.js";
export { DEFAULT_BUDGET_MAX_TOKENS, DEFAULT_BUDGET_MIN_PER_SECOND, DEFAULT_BUDGET_RATIO, RetryBudget, } from "./budget.js";
export type { CircuitBreakerOptions, CircuitOutcome, CircuitState } from "./circuit-breaker.js";
export { CircuitBreaker } from "./circuit-breaker.js";
export { createFetch } from "./client.js";
export type { Clock } from "./clock.js";
export { sleep, systemClock } from "./clock.js";
export { CHANNELS } from "./diagnostics.js";
export { AttemptTimeoutError, CircuitOpenError, DeadlineExceededError, isAttemptTimeoutError, isCircuitOpenError, isDeadlineExceededError, isSuretyFetchError, SuretyFetchError, type SuretyFetchErrorCode, } from "./errors.js";
export type { GiveUpEvent, GiveUpReason, RetryEvent } from "./events.js";
export { ATTEMPT_HEADER, DEADLINE_HEADER, IDEMPOTENCY_KEY_HEADER } from "./headers.js";
export type { FetchInput, FetchOptions, SuretyFetch, SuretyRequestInit, Transport, TransportInit, } from "./options.js";
export { DEFAULT_ATTEMPT_TIMEOUT, DEFAULT_ATTEMPT_TIMEOUT_MS, DEFAULT_CONNECT_TIMEOUT, DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_DEADLINE, DEFAULT_DEADLINE_MS, DEFAULT_MAX_ATTEMPTS, } from "./options.js";
export { DEFAULT_RETRY_METHODS, DEFAULT_RETRY_STATUSES, isOriginFailure, isRetryableError, RETRYABLE_ERROR_CODES, } from "./policy.js";
export type { DeadlineProblemInput, HeaderSource, ReadDeadlineOptions } from "./server.js";
export { DEFAULT_MAX_DEADLINE_MS, deadlineProblem, deadlineSignal, readDeadline } from "./server.js";

// --- dist/backoff.d.ts
export interface BackoffOptions {
    baseDelayMs?: number;
    maxDelayMs?: number;
    baseDelay?: number;
    maxDelay?: number;
    random?: () => number;
}
export declare const DEFAULT_BASE_DELAY_MS = 200;
export declare const DEFAULT_MAX_DELAY_MS = 5000;
export declare const DEFAULT_BASE_DELAY = 200;
export declare const DEFAULT_MAX_DELAY = 5000;
export declare function fullJitter(retry: number, options?: BackoffOptions): number;

// --- dist/body.d.ts
export type Body = NonNullable<RequestInit["body"]> | AsyncIterable<Uint8Array>;
export interface PreparedBody {
    body: Body | null | undefined;
    factory: (() => Body) | undefined;
    replayable: boolean;
    contentType: string | undefined;
}
export declare function prepareBody(body: Body | null | undefined, factory: (() => Body) | undefined, mayRetry: boolean): PreparedBody | Promise<PreparedBody>;

// --- dist/budget.d.ts
import { type Clock } from "./clock.js";
export interface RetryBudgetOptions {
    ratio?: number;
    minPerSecond?: number;
    maxTokens?: number;
    clock?: Pick<Clock, "now">;
}
export declare const DEFAULT_BUDGET_RATIO = 0.1;
export declare const DEFAULT_BUDGET_MIN_PER_SECOND = 1;
export declare const DEFAULT_BUDGET_MAX_TOKENS = 10;
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

// --- dist/clock.d.ts
export interface Clock {
    now(): number;
    setTimeout(callback: () => void, ms: number): unknown;
    clearTimeout(handle: unknown): void;
}
export declare const systemClock: Clock;
export declare function sleep(clock: Clock, ms: number, options?: {
    signal?: AbortSignal | null;
}): Promise<void>;

// --- dist/circuit-breaker.d.ts
import { type Clock } from "./clock.js";
export interface CircuitBreakerOptions {
    consecutiveFailures?: number;
    failureRatio?: number;
    minimumRequests?: number;
    windowMs?: number;
    openMs?: number;
    halfOpenProbes?: number;
    clock?: Pick<Clock, "now">;
    onStateChange?: (state: CircuitState, previous: CircuitState) => void;
}
export type CircuitState = "closed" | "open" | "half-open";
export type CircuitOutcome = "success" | "failure" | "ignore";
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

// --- dist/client.d.ts
import { type FetchOptions, type SuretyFetch } from "./options.js";
export declare function createFetch(options?: FetchOptions): SuretyFetch;

// --- dist/options.d.ts
import type { Dispatcher } from "undici";
import type { Body } from "./body.js";
import type { RetryBudget, RetryBudgetOptions } from "./budget.js";
import type { CircuitBreaker, CircuitBreakerOptions } from "./circuit-breaker.js";
import type { Clock } from "./clock.js";
import type { GiveUpEvent, RetryEvent } from "./events.js";
export type FetchInput = string | URL | Request;
export type TransportInit = RequestInit & {
    dispatcher?: Dispatcher;
    duplex?: "half";
};
export type Transport = (url: string, init: TransportInit) => Promise<Response>;
export interface SuretyRequestInit extends Omit<RequestInit, "body" | "dispatcher"> {
    body?: Body | null;
    idempotencyKey?: "auto" | false | (string & {});
    deadlineMs?: number;
    deadline?: number;
    maxAttempts?: number;
    bodyFactory?: () => Body;
    dispatcher?: Dispatcher;
    duplex?: "half";
}
export interface FetchOptions {
    maxAttempts?: number;
    deadlineMs?: number;
    deadline?: number;
    attemptTimeoutMs?: number;
    attemptTimeout?: number;
    connectTimeoutMs?: number;
    connectTimeout?: number;
    baseDelayMs?: number;
    baseDelay?: number;
    maxDelayMs?: number;
    maxDelay?: number;
    retryMethods?: readonly string[];
    retryStatuses?: readonly number[];
    idempotencyKey?: "auto" | false;
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
export interface SuretyFetch {
    (input: FetchInput, init?: SuretyRequestInit): Promise<Response>;
    budgetFor(origin: string): RetryBudget | undefined;
    breakerFor(origin: string): CircuitBreaker | undefined;
    readonly dispatcher: Dispatcher;
    close(): Promise<void>;
}
export declare const DEFAULT_MAX_ATTEMPTS = 4;
export declare const DEFAULT_DEADLINE_MS = 30000;
export declare const DEFAULT_ATTEMPT_TIMEOUT_MS = 10000;
export declare const DEFAULT_CONNECT_TIMEOUT_MS = 5000;
export declare const DEFAULT_DEADLINE = 30000;
export declare const DEFAULT_ATTEMPT_TIMEOUT = 10000;
export declare const DEFAULT_CONNECT_TIMEOUT = 5000;

// --- dist/events.d.ts
export type GiveUpReason = "max-attempts" | "deadline" | "retry-after" | "budget" | "circuit-open" | "method" | "body";
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
export interface GiveUpEvent {
    url: string;
    method: string;
    attempts: number;
    reason: GiveUpReason;
    status?: number;
    error?: unknown;
}

// --- dist/diagnostics.d.ts
import diagnosticsChannel from "node:diagnostics_channel";
export declare const CHANNELS: {
    readonly attempt: "surety:fetch:attempt";
    readonly retry: "surety:fetch:retry";
    readonly giveUp: "surety:fetch:giveUp";
    readonly circuit: "surety:fetch:circuit";
};
export declare const attemptChannel: diagnosticsChannel.Channel<unknown, unknown>;
export declare const retryChannel: diagnosticsChannel.Channel<unknown, unknown>;
export declare const giveUpChannel: diagnosticsChannel.Channel<unknown, unknown>;
export declare const circuitChannel: diagnosticsChannel.Channel<unknown, unknown>;

// --- dist/errors.d.ts
export type SuretyFetchErrorCode = "SURETY_ATTEMPT_TIMEOUT" | "SURETY_DEADLINE_EXCEEDED" | "SURETY_CIRCUIT_OPEN";
export declare class SuretyFetchError extends Error {
    readonly code: SuretyFetchErrorCode;
    constructor(code: SuretyFetchErrorCode, message: string, options?: {
        cause?: unknown;
    });
}
export declare class AttemptTimeoutError extends SuretyFetchError {
    readonly timeoutMs: number;
    readonly code: "SURETY_ATTEMPT_TIMEOUT";
    constructor(timeoutMs: number, options?: {
        cause?: unknown;
    });
}
export declare class DeadlineExceededError extends SuretyFetchError {
    readonly deadlineMs: number;
    readonly code: "SURETY_DEADLINE_EXCEEDED";
    constructor(deadlineMs: number, options?: {
        cause?: unknown;
    });
}
export declare class CircuitOpenError extends SuretyFetchError {
    readonly origin: string;
    readonly retryAfterMs: number;
    readonly code: "SURETY_CIRCUIT_OPEN";
    constructor(origin: string, retryAfterMs: number);
}
export declare const isSuretyFetchError: (value: unknown) => value is SuretyFetchError;
export declare const isAttemptTimeoutError: (value: unknown) => value is AttemptTimeoutError;
export declare const isDeadlineExceededError: (value: unknown) => value is DeadlineExceededError;
export declare const isCircuitOpenError: (value: unknown) => value is CircuitOpenError;

// --- dist/headers.d.ts
export declare const DEADLINE_HEADER = "Surety-Timeout-Ms";
export declare const ATTEMPT_HEADER = "Surety-Attempt";
export declare const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";

// --- dist/policy.d.ts
export declare const DEFAULT_RETRY_METHODS: readonly string[];
export declare const DEFAULT_RETRY_STATUSES: readonly number[];
export declare const RETRYABLE_ERROR_CODES: ReadonlySet<string>;
export declare function isRetryableError(error: unknown): boolean;
export declare function isOriginFailure(outcome: number | unknown): boolean;

// --- dist/server.d.ts
export type HeaderSource = Headers | {
    get(name: string): string | null;
} | Record<string, string | readonly string[] | undefined>;
export interface ReadDeadlineOptions {
    header?: string;
    maxMs?: number;
    reserveMs?: number;
    defaultMs?: number;
}
export declare const DEFAULT_MAX_DEADLINE_MS = 300000;
export declare function readDeadline(headers: HeaderSource, options?: ReadDeadlineOptions): number | undefined;
export declare function deadlineSignal(headers: HeaderSource, options?: ReadDeadlineOptions): AbortSignal | undefined;
export { PROBLEM_CONTENT_TYPE } from "@surety/core";
export interface DeadlineProblemInput {
    deadlineMs: number;
    instance?: string;
    status?: number;
}
export declare function deadlineProblem(input: DeadlineProblemInput): string;

// ===== ./server → ./dist/server.d.ts
// (dist/server.d.ts: above)
// ===== ./fastify → ./dist/fastify.d.ts
// --- dist/fastify.d.ts
import type { FastifyPluginAsync } from "fastify";
import { type Clock } from "./clock.js";
import { type ReadDeadlineOptions } from "./server.js";
export interface RequestDeadline {
    readonly signal: AbortSignal;
    readonly budgetMs: number;
    remaining(): number;
}
declare module "fastify" {
    interface FastifyRequest {
        deadline: RequestDeadline | undefined;
    }
}
export interface FastifyDeadlineOptions extends ReadDeadlineOptions {
    status?: 503 | 504;
    clock?: Clock;
}
export declare const deadline: FastifyPluginAsync<FastifyDeadlineOptions>;
export default deadline;

// (dist/clock.d.ts: above)
// (dist/server.d.ts: above)
// ===== ./testing → ./dist/testing.d.ts
// --- dist/testing.d.ts
import type { Clock } from "./clock.js";
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

// (dist/clock.d.ts: above)
