// The public API of @surety/idempotency (scripts/api-report.mjs; do not edit by hand).

// ===== . → ./dist/index.d.ts
// --- dist/index.d.ts
export type { Completer, CompleterOptions } from "./completer.js";
export { createIdempotency, Idempotency } from "./engine.js";
export type { IdempotencyErrorCode } from "./errors.js";
export { EffectFailedError, EffectRetryLaterError, IdempotencyError, isEffectFailedError, isEffectRetryLaterError, isIdempotencyError, isLeaseLostError, isNoTransactionError, isStoreUnavailableError, LeaseLostError, NoTransactionError, StoreUnavailableError, } from "./errors.js";
export { isFinalStatus } from "./final.js";
export type { FingerprintInput } from "./fingerprint.js";
export { canonicalJson, fingerprint } from "./fingerprint.js";
export type { Problem } from "./http.js";
export { DESCRIBING_HEADERS, describingHeaders, outcomeResponse, PROBLEM_CONTENT_TYPE, problemBody, REPLAYED_HEADER, readKey, } from "./http.js";
export type { KeyCheck } from "./key.js";
export { checkKey, deriveKey, MAX_KEY_LENGTH } from "./key.js";
export { migrations } from "./migrations.js";
export type { Flow, PhasedOperation } from "./phases.js";
export { phasedOperation } from "./phases.js";
export type { PurgeOptions } from "./purge.js";
export type { AdapterOptions, AdapterOutcome, RunInput, RunResult } from "./run.js";
export { errorAnswer, runIdempotent } from "./run.js";
export type { BodyEncoding } from "./stored-body.js";
export { BODY_OMITTED_HEADER } from "./stored-body.js";
export type { AcquireResult, IdempotencyOptions, IdempotencyRequest, IdempotencyWarning, Lease, Outcome, StoredInfo, StoredResponse, } from "./types.js";

// --- dist/completer.d.ts
import type { PhaseStatements } from "./phase-statements.js";
import { type PhasedOperation } from "./phases.js";
import type { EngineContext } from "./types.js";
export interface CompleterOptions {
    operations: readonly PhasedOperation<any>[];
    graceMs?: number;
    batchSize?: number;
    intervalMs?: number;
    onError?: (error: unknown, at: {
        tenant: string;
        key: string;
        operation: string;
    }) => void;
}
export interface Completer {
    runOnce(): Promise<number>;
    start(): void;
    stop(): Promise<void>;
}
export declare function createCompleter(ctx: EngineContext, pst: PhaseStatements, options: CompleterOptions): Completer;

// --- dist/phase-statements.d.ts
import { type Statement } from "@surety/db";
export interface PhaseStatements {
    acquire: Statement;
    record: Statement;
    pause: Statement;
    abandon: Statement;
    stuck: Statement;
}
export declare function phaseStatements(schema: string): PhaseStatements;

// --- dist/phases.d.ts
import { type Tx } from "@surety/db";
import type { PhaseStatements } from "./phase-statements.js";
import type { EngineContext, IdempotencyRequest, Outcome, StoredResponse } from "./types.js";
export interface Flow {
    readonly tenant: string;
    readonly key: string;
    readonly resumedFrom: string | undefined;
    done(name: string): boolean;
    local<T>(name: string, run: (tx: Tx) => Promise<T>): Promise<T>;
    external<T>(name: string, call: (derivedKey: string) => Promise<T>): Promise<T>;
}
export interface PhasedOperation<I = unknown> {
    readonly name: string;
    readonly run: (flow: Flow, input: I) => Promise<StoredResponse>;
}
export declare function phasedOperation<I>(name: string, run: (flow: Flow, input: I) => Promise<StoredResponse>): PhasedOperation<I>;
export declare function runPhased<I>(ctx: EngineContext, pst: PhaseStatements, request: IdempotencyRequest, operation: PhasedOperation<I>, input: I): Promise<Outcome>;

// --- dist/types.d.ts
import type { Sql, Tx } from "@surety/db";
import type { Statements } from "./statements.js";
import type { BodyEncoding, BodyLimits, EncodedBody } from "./stored-body.js";
export interface StoredResponse {
    status: number;
    headers: Record<string, string>;
    body: string;
    final?: boolean;
}
export interface IdempotencyRequest {
    tenant: string;
    key: string;
    fingerprint: string;
    formerKeys?: readonly string[];
}
export type Outcome = {
    kind: "executed";
    response: StoredResponse;
    stored: boolean;
} | {
    kind: "replayed";
    response: StoredResponse;
} | {
    kind: "in_flight";
    retryAfterSeconds: number;
} | {
    kind: "mismatch";
};
export type Seen = Exclude<Outcome, {
    kind: "executed";
}>;
export interface IdempotencyOptions {
    sql: Sql;
    schema?: string;
    ttlMs?: number;
    leaseMs?: number;
    retryAfterSeconds?: number;
    now?: () => number;
    isFinal?: (status: number) => boolean;
    compressAboveBytes?: number;
    maxStoredBodyBytes?: number;
    onStored?: (info: StoredInfo) => void;
    warnOnEmptyTransaction?: boolean;
    onWarning?: (warning: IdempotencyWarning) => void;
}
export interface StoredInfo {
    tenant: string;
    bodyBytes: number;
    storedBytes: number;
    encoding: BodyEncoding;
}
export interface IdempotencyWarning {
    code: "SURETY_IDEMPOTENCY_EMPTY_TRANSACTION";
    message: string;
    tenant: string;
    key: string;
    status: number;
}
export interface Lease {
    readonly key: string;
    readonly token: string;
    readonly expiresAt: Date;
    renew(): Promise<void>;
    complete(response: StoredResponse, tx?: Tx): Promise<void>;
    release(): Promise<void>;
}
export type AcquireResult = {
    kind: "acquired";
    lease: Lease;
} | Seen;
export interface EngineContext {
    readonly sql: Sql;
    readonly st: Statements;
    readonly ttlMs: number;
    readonly leaseMs: number;
    readonly retryAfterSeconds: number;
    readonly now: () => number;
    readonly inFlight: Set<string> | undefined;
    readonly final: (response: StoredResponse) => boolean;
    readonly bodyLimits: BodyLimits;
    readonly stored: (tenant: string, body: EncodedBody) => void;
    readonly warnEmpty: ((warning: IdempotencyWarning) => void) | undefined;
}

// --- dist/statements.d.ts
import { type ParameterizedStatement, type Statement } from "@surety/db";
export interface Statements {
    claimLock: Statement;
    claim: Statement;
    completeAtCommit: (values: CompleteValues, replace: boolean) => ParameterizedStatement;
    acquire: Statement;
    read: Statement;
    leaseComplete: Statement;
    completedBy: Statement;
    renew: Statement;
    release: Statement;
    purge: Statement;
    purgeAsyncCommit: Statement;
    wroteNothing: Statement;
}
export interface CompleteValues {
    tenant: string;
    key: string;
    fingerprint: string;
    status: number;
    headers: string;
    body: string | null;
    bodyGzip: Buffer | null;
    bodyEncoding: "gzip" | "omitted" | null;
    createdAt: string;
    expiresAt: string;
    lockId: string;
}
export declare function statements(schema: string): Statements;
export declare function statementName(name: string, schema: string): string;

// --- dist/stored-body.d.ts
export declare const BODY_OMITTED_HEADER = "idempotent-body-omitted";
export type BodyEncoding = "text" | "gzip" | "omitted";
export interface BodyLimits {
    compressAboveBytes: number;
    maxStoredBodyBytes: number;
}
export interface EncodedBody {
    text: string | null;
    gzip: Buffer | null;
    column: "gzip" | "omitted" | null;
    encoding: BodyEncoding;
    bodyBytes: number;
    storedBytes: number;
}
export declare function encodeBody(body: string, limits: BodyLimits): EncodedBody;
export declare function decodeBody(row: {
    body: string | null;
    body_gzip?: Uint8Array | null;
    body_encoding?: string | null;
}): {
    body: string;
    omitted: boolean;
};

// --- dist/engine.d.ts
import { type Sql, type Tx } from "@surety/db";
import { type Completer, type CompleterOptions } from "./completer.js";
import { type PhasedOperation } from "./phases.js";
import { type PurgeOptions } from "./purge.js";
import type { AcquireResult, IdempotencyOptions, IdempotencyRequest, Lease, Outcome, StoredResponse } from "./types.js";
export declare class Idempotency {
    #private;
    readonly sql: Sql;
    readonly schema: string;
    readonly ttlMs: number;
    readonly leaseMs: number;
    readonly retryAfterSeconds: number;
    constructor(options: IdempotencyOptions);
    using(sql: Sql): Idempotency;
    migrate(): Promise<void>;
    lockId(tenant: string, key: string): string;
    execute(request: IdempotencyRequest, handler: (tx: Tx) => Promise<StoredResponse>): Promise<Outcome>;
    transact(handler: (tx: Tx) => Promise<StoredResponse>): Promise<StoredResponse>;
    acquire(request: IdempotencyRequest): Promise<AcquireResult>;
    withLease(request: IdempotencyRequest, handler: (lease: Lease) => Promise<StoredResponse>): Promise<Outcome>;
    phased<I>(request: IdempotencyRequest, operation: PhasedOperation<I>, input: I): Promise<Outcome>;
    completer(options: CompleterOptions): Completer;
    purgeExpired(options?: PurgeOptions): Promise<number>;
}
export declare const createIdempotency: (options: IdempotencyOptions) => Idempotency;

// --- dist/purge.d.ts
import type { EngineContext } from "./types.js";
export interface PurgeOptions {
    batchSize?: number;
    maxBatches?: number;
    dutyCycle?: number;
    pauseMs?: number;
    maxDurationMs?: number;
    asyncCommit?: boolean;
    signal?: AbortSignal;
}
export interface PurgeTimer {
    now(): number;
    sleep(ms: number, signal?: AbortSignal): Promise<void>;
}
export declare const PURGE_DEFAULTS: {
    readonly batchSize: 200;
    readonly maxBatches: 5000;
    readonly dutyCycle: 0.2;
    readonly maxDurationMs: 300000;
    readonly asyncCommit: true;
};
export declare function purgeSettings(options?: PurgeOptions): {
    batchSize: number;
    maxBatches: number;
    dutyCycle: number;
    pauseMs: number | undefined;
    maxDurationMs: number;
    asyncCommit: boolean;
};
export declare function pacedPurge(batch: (limit: number) => Promise<number>, options?: PurgeOptions, timer?: PurgeTimer): Promise<number>;
export declare function purgeExpired(ctx: EngineContext, options?: PurgeOptions): Promise<number>;

// --- dist/errors.d.ts
export type IdempotencyErrorCode = "SURETY_IDEMPOTENCY_LEASE_LOST" | "SURETY_IDEMPOTENCY_STORE_UNAVAILABLE" | "SURETY_IDEMPOTENCY_NO_TRANSACTION" | "SURETY_IDEMPOTENCY_EFFECT_FAILED" | "SURETY_IDEMPOTENCY_EFFECT_RETRY_LATER";
export declare class IdempotencyError extends Error {
    readonly code: IdempotencyErrorCode;
    constructor(code: IdempotencyErrorCode, message: string, options?: {
        cause?: unknown;
    });
}
export declare class LeaseLostError extends IdempotencyError {
    readonly code: "SURETY_IDEMPOTENCY_LEASE_LOST";
    constructor(message?: string);
}
export declare class StoreUnavailableError extends IdempotencyError {
    readonly code: "SURETY_IDEMPOTENCY_STORE_UNAVAILABLE";
    constructor(options?: {
        cause?: unknown;
    });
}
export declare class NoTransactionError extends IdempotencyError {
    readonly code: "SURETY_IDEMPOTENCY_NO_TRANSACTION";
    constructor(message?: string);
}
export declare class EffectFailedError extends IdempotencyError {
    readonly reason: string;
    readonly code: "SURETY_IDEMPOTENCY_EFFECT_FAILED";
    constructor(reason: string, options?: {
        cause?: unknown;
    });
}
export declare class EffectRetryLaterError extends IdempotencyError {
    readonly retryAfterMs: number;
    readonly code: "SURETY_IDEMPOTENCY_EFFECT_RETRY_LATER";
    constructor(retryAfterMs: number, options?: {
        cause?: unknown;
    });
}
export declare const isIdempotencyError: (value: unknown) => value is IdempotencyError;
export declare const isLeaseLostError: (value: unknown) => value is LeaseLostError;
export declare const isStoreUnavailableError: (value: unknown) => value is StoreUnavailableError;
export declare const isNoTransactionError: (value: unknown) => value is NoTransactionError;
export declare const isEffectFailedError: (value: unknown) => value is EffectFailedError;
export declare const isEffectRetryLaterError: (value: unknown) => value is EffectRetryLaterError;

// --- dist/final.d.ts
export declare const isFinalStatus: (status: number) => boolean;

// --- dist/fingerprint.d.ts
export declare function canonicalJson(value: unknown): string;
export interface FingerprintInput {
    method: string;
    url: string;
    body?: unknown;
}
export declare function fingerprint({ method, url, body }: FingerprintInput): string;

// --- dist/http.d.ts
import type { Problem } from "@surety/core";
import type { Seen, StoredResponse } from "./types.js";
export declare const DESCRIBING_HEADERS: readonly [
    "content-type",
    "content-language",
    "content-location",
    "location",
    "etag",
    "last-modified"
];
export declare const REPLAYED_HEADER = "Idempotent-Replayed";
export { PROBLEM_CONTENT_TYPE, type Problem, problemBody } from "@surety/core";
export declare function describingHeaders(headers: Record<string, unknown> | Headers, names?: readonly string[]): Record<string, string>;
export declare function readKey(value: string | readonly string[] | undefined, required: boolean): {
    kind: "key";
    key: string | undefined;
} | {
    kind: "problem";
    problem: Problem;
};
export declare function outcomeResponse(outcome: Seen): StoredResponse | Problem;
export declare const storeUnavailableProblem: Problem;
export declare function engineErrorProblem(error: unknown): Problem | undefined;

// --- dist/key.d.ts
export declare const MAX_KEY_LENGTH = 255;
export type KeyCheck = {
    kind: "valid";
    ok: true;
    key: string | undefined;
} | {
    kind: "invalid";
    ok: false;
    code: "idempotency_key_invalid";
    detail: string;
};
export declare function quotedKey(key: string): string;
export declare function checkKey(value: string | readonly string[] | undefined): KeyCheck;
export declare function deriveKey(key: string, step: string): string;

// --- dist/migrations.d.ts
export declare const migrations: import("@surety/db").MigrationSet;

// --- dist/run.d.ts
import type { Tx } from "@surety/db";
import type { Idempotency } from "./engine.js";
import { type FingerprintInput } from "./fingerprint.js";
import { type Problem } from "./http.js";
import type { PhasedOperation } from "./phases.js";
import type { Outcome, StoredResponse } from "./types.js";
export type AdapterOutcome = Outcome["kind"] | "unavailable";
export interface AdapterOptions<Req> {
    engine: Idempotency;
    tenant?: ((request: Req) => string) | undefined;
    errorResponse?: ((error: unknown, request: Req) => StoredResponse | undefined) | undefined;
    onOutcome?: ((outcome: AdapterOutcome, request: Req) => void) | undefined;
}
export interface RunInput<Req> {
    options: AdapterOptions<Req>;
    request: Req;
    header: string | readonly string[] | undefined;
    required: boolean;
    fingerprintInput: () => FingerprintInput | Promise<FingerprintInput>;
    handler: (tx: Tx, key: string | undefined) => Promise<StoredResponse>;
    phased?: PhasedRoute | undefined;
}
export interface PhasedRoute {
    operation: PhasedOperation<any>;
    input: (key: string) => unknown;
}
export type RunResult = {
    kind: "response";
    response: StoredResponse;
} | {
    kind: "problem";
    problem: Problem;
    source: "key" | "outcome" | "store";
};
export declare function runIdempotent<Req>(input: RunInput<Req>): Promise<RunResult>;
export declare function errorAnswer<Req>(input: {
    options: AdapterOptions<Req>;
    error: unknown;
    request: Req;
}): StoredResponse | undefined;
export declare function requireTx(tx: Tx | undefined): Tx;

// ===== ./fastify → ./dist/fastify.d.ts
// --- dist/fastify.d.ts
import type { Tx } from "@surety/db";
import type { FastifyPluginAsync, FastifyRequest } from "fastify";
import type { PhasedOperation } from "./phases.js";
import { type AdapterOptions } from "./run.js";
declare module "fastify" {
    interface FastifyRequest {
        tx: Tx | undefined;
        idempotencyKey: string | undefined;
    }
    interface FastifyContextConfig {
        idempotency?: boolean | {
            required?: boolean;
            phased?: PhasedOperation<any>;
        };
    }
}
export interface FastifyIdempotencyOptions extends AdapterOptions<FastifyRequest> {
}
export declare const txOf: (request: FastifyRequest) => Tx;
export declare const idempotency: FastifyPluginAsync<FastifyIdempotencyOptions>;
export default idempotency;

// (dist/phases.d.ts: above)
// (dist/phase-statements.d.ts: above)
// (dist/types.d.ts: above)
// (dist/statements.d.ts: above)
// (dist/stored-body.d.ts: above)
// (dist/run.d.ts: above)
// (dist/engine.d.ts: above)
// (dist/completer.d.ts: above)
// (dist/purge.d.ts: above)
// (dist/fingerprint.d.ts: above)
// (dist/http.d.ts: above)
// ===== ./express → ./dist/express.d.ts
// --- dist/express.d.ts
import type { Tx } from "@surety/db";
import type { ErrorRequestHandler, Request, RequestHandler } from "express";
import type { PhasedOperation } from "./phases.js";
import { type AdapterOptions } from "./run.js";
declare global {
    namespace Express {
        interface Request {
            tx?: Tx;
            idempotencyKey?: string | undefined;
        }
    }
}
export interface ExpressIdempotencyOptions extends AdapterOptions<Request> {
    required?: boolean;
}
export interface ExpressIdempotency extends RequestHandler {
    errors: ErrorRequestHandler;
}
export declare const txOf: (req: Request) => Tx;
export declare function idempotency(options: ExpressIdempotencyOptions): ExpressIdempotency;
export declare function phased<I>(options: AdapterOptions<Request>, operation: PhasedOperation<I>, input: (req: Request, key: string) => I | Promise<I>): RequestHandler;
export default idempotency;

// (dist/phases.d.ts: above)
// (dist/phase-statements.d.ts: above)
// (dist/types.d.ts: above)
// (dist/statements.d.ts: above)
// (dist/stored-body.d.ts: above)
// (dist/run.d.ts: above)
// (dist/engine.d.ts: above)
// (dist/completer.d.ts: above)
// (dist/purge.d.ts: above)
// (dist/fingerprint.d.ts: above)
// (dist/http.d.ts: above)
// ===== ./hono → ./dist/hono.d.ts
// --- dist/hono.d.ts
import type { Tx } from "@surety/db";
import type { Context, MiddlewareHandler } from "hono";
import type { PhasedOperation } from "./phases.js";
import { type AdapterOptions } from "./run.js";
export interface HonoIdempotencyOptions extends AdapterOptions<Context> {
    required?: boolean;
}
export type IdempotencyVariables = {
    tx: Tx;
    idempotencyKey: string | undefined;
};
export declare function idempotency(options: HonoIdempotencyOptions): MiddlewareHandler<{
    Variables: IdempotencyVariables;
}>;
export declare function phased<I>(options: AdapterOptions<Context>, operation: PhasedOperation<I>, input: (c: Context, key: string) => I | Promise<I>): (c: Context) => Promise<Response>;
export default idempotency;

// (dist/phases.d.ts: above)
// (dist/phase-statements.d.ts: above)
// (dist/types.d.ts: above)
// (dist/statements.d.ts: above)
// (dist/stored-body.d.ts: above)
// (dist/run.d.ts: above)
// (dist/engine.d.ts: above)
// (dist/completer.d.ts: above)
// (dist/purge.d.ts: above)
// (dist/fingerprint.d.ts: above)
// (dist/http.d.ts: above)
// ===== ./nestjs → ./dist/nestjs.d.ts
// --- dist/nestjs.d.ts
import { type CallHandler, type DynamicModule, type ExecutionContext, type NestInterceptor } from "@nestjs/common";
import type { Tx as SuretyTx } from "@surety/db";
import { type Observable } from "rxjs";
import type { PhasedOperation } from "./phases.js";
import { type AdapterOptions } from "./run.js";
export interface NestRequest {
    method: string;
    url: string;
    originalUrl?: string;
    headers: Record<string, string | string[] | undefined>;
    body?: unknown;
}
export interface NestIdempotencyOptions extends AdapterOptions<NestRequest> {
    required?: boolean;
}
export declare const IDEMPOTENCY_OPTIONS: unique symbol;
export interface IdempotentRoute {
    required?: boolean;
    phased?: PhasedOperation<any>;
}
export declare const txOf: (request: object) => SuretyTx;
export declare class IdempotencyTransaction {
    tx(): SuretyTx;
}
export declare class IdempotencyInterceptor implements NestInterceptor {
    private readonly options;
    constructor(options: NestIdempotencyOptions);
    intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>>;
}
export declare function Idempotent(route?: IdempotentRoute): MethodDecorator;
export type Tx = SuretyTx;
export declare const Tx: () => ParameterDecorator;
export declare class SuretyIdempotencyModule {
    static forRoot(options: NestIdempotencyOptions): DynamicModule;
}

// (dist/phases.d.ts: above)
// (dist/phase-statements.d.ts: above)
// (dist/types.d.ts: above)
// (dist/statements.d.ts: above)
// (dist/stored-body.d.ts: above)
// (dist/run.d.ts: above)
// (dist/engine.d.ts: above)
// (dist/completer.d.ts: above)
// (dist/purge.d.ts: above)
// (dist/fingerprint.d.ts: above)
// (dist/http.d.ts: above)
// ===== ./effects → ./dist/effects/index.d.ts
// --- dist/effects/index.d.ts
export type { EffectContext, EffectDefinition, EffectFailure } from "./define.js";
export { defineEffect } from "./define.js";
export type { EffectRecord, EffectsOptions, EnqueueInput } from "./outbox.js";
export { createEffects, Effects } from "./outbox.js";
export type { EffectRetryOptions, RetryDecision, RetryInput } from "./policy.js";
export { decideRetry, EFFECT_RETRY_DEFAULTS } from "./policy.js";
export type { EffectOutcome, EffectWorker, EffectWorkerOptions } from "./worker.js";

// --- dist/effects/define.d.ts
import type { Tx } from "@surety/db";
import type { EffectRetryOptions } from "./policy.js";
export interface EffectContext<P> {
    readonly id: string;
    readonly tenant: string;
    readonly key: string;
    readonly derivedKey: string;
    readonly payload: P;
    readonly attempt: number;
    readonly signal: AbortSignal;
}
export interface EffectFailure {
    reason: "permanent" | "attempts_exhausted" | "deadline_exceeded";
    error: string;
}
export interface EffectDefinition<P = unknown, R = unknown> extends EffectRetryOptions {
    readonly name: string;
    readonly run: (ctx: EffectContext<P>) => Promise<R>;
    readonly onSucceeded?: (tx: Tx, result: R, ctx: EffectContext<P>) => Promise<void>;
    readonly onFailed?: (tx: Tx, failure: EffectFailure, ctx: EffectContext<P>) => Promise<void>;
}
export declare function defineEffect<P, R>(definition: EffectDefinition<P, R>): EffectDefinition<P, R>;

// --- dist/effects/policy.d.ts
import { type RetryBudget } from "@surety/fetch";
export interface EffectRetryOptions {
    deadlineMs?: number;
    maxAttempts?: number;
    baseDelayMs?: number;
    maxDelayMs?: number;
}
export declare const EFFECT_RETRY_DEFAULTS: Required<EffectRetryOptions>;
export type RetryDecision = {
    kind: "retry";
    atMs: number;
    delayMs: number;
    deferredByBudget: boolean;
} | {
    kind: "fail";
    reason: "permanent" | "attempts_exhausted" | "deadline_exceeded";
};
export interface RetryInput {
    error: unknown;
    attempts: number;
    nowMs: number;
    deadlineMs: number;
    policy: Required<EffectRetryOptions>;
    random: () => number;
    budget: RetryBudget | undefined;
}
export declare function decideRetry(input: RetryInput): RetryDecision;
export declare function describeError(error: unknown): string;

// --- dist/effects/outbox.d.ts
import { type Queryable, type Sql } from "@surety/db";
import { type RetryBudgetOptions } from "@surety/fetch";
import type { EffectDefinition } from "./define.js";
import { type EffectRetryOptions } from "./policy.js";
import { type EffectWorker, type EffectWorkerOptions } from "./worker.js";
export interface EffectsOptions {
    sql: Sql;
    schema?: string;
    effects: readonly EffectDefinition<any, any>[];
    retry?: EffectRetryOptions;
    budget?: RetryBudgetOptions | false;
    now?: () => number;
    random?: () => number;
}
export interface EnqueueInput<P = unknown> {
    tenant: string;
    effect: string | EffectDefinition<P, any>;
    key: string;
    payload: P;
    delayMs?: number;
}
export interface EffectRecord {
    id: string;
    tenant: string;
    name: string;
    key: string;
    state: "pending" | "running" | "succeeded" | "failed";
    attempts: number;
    runAt: string;
    deadlineAt: string;
    result: unknown;
    lastError: string | null;
    createdAt: string;
    finishedAt: string | null;
}
export declare class Effects {
    #private;
    readonly sql: Sql;
    readonly schema: string;
    constructor(options: EffectsOptions);
    migrate(): Promise<void>;
    enqueue<P>(q: Queryable, input: EnqueueInput<P>): Promise<{
        id: string;
        created: boolean;
    }>;
    find(q: Queryable, where: {
        tenant: string;
        effect: string;
        key: string;
    }): Promise<EffectRecord | undefined>;
    worker(options?: EffectWorkerOptions): EffectWorker;
}
export declare const createEffects: (options: EffectsOptions) => Effects;

// --- dist/effects/worker.d.ts
import type { EffectsContext } from "./context.js";
export interface EffectWorkerOptions {
    concurrency?: number;
    intervalMs?: number;
    leaseMs?: number;
    attemptTimeoutMs?: number;
    onError?: (error: unknown, at: {
        id: string;
        name: string;
    }) => void;
    onOutcome?: (outcome: EffectOutcome) => void;
}
export interface EffectOutcome {
    id: string;
    name: string;
    attempt: number;
    kind: "succeeded" | "retried" | "failed" | "lost";
    delayMs?: number;
    error?: string;
}
export interface EffectWorker {
    runOnce(): Promise<number>;
    start(): void;
    stop(): Promise<void>;
}
export declare function createEffectWorker(ctx: EffectsContext, options: EffectWorkerOptions): EffectWorker;

// --- dist/effects/context.d.ts
import type { Sql } from "@surety/db";
import type { RetryBudget } from "@surety/fetch";
import type { EffectDefinition } from "./define.js";
import type { EffectRetryOptions } from "./policy.js";
import type { EffectStatements } from "./statements.js";
export interface EffectsContext {
    sql: Sql;
    st: EffectStatements;
    byName: ReadonlyMap<string, EffectDefinition>;
    policy: (definition: EffectDefinition) => Required<EffectRetryOptions>;
    budgetOf: (name: string) => RetryBudget | undefined;
    now: () => number;
    random: () => number;
}

// --- dist/effects/statements.d.ts
import { type Statement } from "@surety/db";
export interface EffectStatements {
    enqueue: Statement;
    claim: Statement;
    succeed: Statement;
    retry: Statement;
    fail: Statement;
    find: Statement;
}
export interface ClaimedRow {
    id: string;
    tenant: string;
    name: string;
    key: string;
    payload: string;
    attempts: number;
    deadline_at: Date | string;
    created_at: Date | string;
}
export declare function effectStatements(schema: string): EffectStatements;
