// The public API of @surety/idempotency: what each entry point exports (scripts/api-report.mjs; do not edit by hand).

// ===== @surety/idempotency
export type AcquireResult = {
    kind: 'acquired';
    lease: Lease;
} | Seen;
export interface AdapterOptions<Req> {
    engine: Idempotency;
    tenant?: ((request: Req) => string) | undefined;
    errorResponse?: ((error: unknown, request: Req) => StoredResponse | undefined) | undefined;
    onOutcome?: ((outcome: AdapterOutcome, request: Req) => void) | undefined;
}
export type AdapterOutcome = Outcome['kind'] | 'unavailable';
export declare const BODY_OMITTED_HEADER = "idempotent-body-omitted";
export type BodyEncoding = 'text' | 'gzip' | 'omitted';
export declare const CHANNELS: {
    readonly outcome: "surety:idempotency:outcome";
    readonly stored: "surety:idempotency:stored";
    readonly warning: "surety:idempotency:warning";
    readonly effect: "surety:idempotency:effect";
};
export interface Completer {
    runOnce(): Promise<number>;
    start(): void;
    stop(): Promise<void>;
}
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
export declare const DESCRIBING_HEADERS: readonly [
    "content-type",
    "content-language",
    "content-location",
    "location",
    "etag",
    "last-modified"
];
export declare class EffectFailedError extends IdempotencyError {
    readonly reason: string;
    readonly code: 'SURETY_IDEMPOTENCY_EFFECT_FAILED';
    constructor(reason: string, options?: {
        cause?: unknown;
    });
}
export declare class EffectRetryLaterError extends IdempotencyError {
    readonly retryAfterMs: number;
    readonly code: 'SURETY_IDEMPOTENCY_EFFECT_RETRY_LATER';
    constructor(retryAfterMs: number, options?: {
        cause?: unknown;
    });
}
export interface FingerprintInput {
    method: string;
    url: string;
    body?: unknown;
}
export interface Flow {
    readonly tenant: string;
    readonly key: string;
    readonly resumedFrom: string | undefined;
    done(name: string): boolean;
    local<T>(name: string, run: (tx: Tx) => Promise<T>): Promise<T>;
    external<T>(name: string, call: (derivedKey: string) => Promise<T>): Promise<T>;
}
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
export declare class IdempotencyError extends Error {
    readonly code: IdempotencyErrorCode;
    constructor(code: IdempotencyErrorCode, message: string, options?: {
        cause?: unknown;
    });
}
export type IdempotencyErrorCode = 'SURETY_IDEMPOTENCY_LEASE_LOST' | 'SURETY_IDEMPOTENCY_STORE_UNAVAILABLE' | 'SURETY_IDEMPOTENCY_NO_TRANSACTION' | 'SURETY_IDEMPOTENCY_EFFECT_FAILED' | 'SURETY_IDEMPOTENCY_EFFECT_RETRY_LATER';
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
export interface IdempotencyRequest {
    tenant: string;
    key: string;
    fingerprint: string;
    formerKeys?: readonly string[];
}
export interface IdempotencyWarning {
    code: 'SURETY_IDEMPOTENCY_EMPTY_TRANSACTION';
    message: string;
    tenant: string;
    key: string;
    status: number;
}
export type KeyCheck = {
    kind: 'valid';
    ok: true;
    key: string | undefined;
} | {
    kind: 'invalid';
    ok: false;
    code: 'idempotency_key_invalid';
    detail: string;
};
export interface Lease {
    readonly key: string;
    readonly token: string;
    readonly expiresAt: Date;
    renew(): Promise<void>;
    complete(response: StoredResponse, tx?: Tx): Promise<void>;
    release(): Promise<void>;
}
export declare class LeaseLostError extends IdempotencyError {
    readonly code: 'SURETY_IDEMPOTENCY_LEASE_LOST';
    constructor(message?: string);
}
export declare const MAX_KEY_LENGTH = 255;
export declare class NoTransactionError extends IdempotencyError {
    readonly code: 'SURETY_IDEMPOTENCY_NO_TRANSACTION';
    constructor(message?: string);
}
export type Outcome = {
    kind: 'executed';
    response: StoredResponse;
    stored: boolean;
} | {
    kind: 'replayed';
    response: StoredResponse;
} | {
    kind: 'in_flight';
    retryAfterSeconds: number;
} | {
    kind: 'mismatch';
};
export { PROBLEM_CONTENT_TYPE } from "@surety/core";
export interface PhasedOperation<I = unknown> {
    readonly name: string;
    readonly run: (flow: Flow, input: I) => Promise<StoredResponse>;
}
export { Problem } from "@surety/core";
export interface PurgeOptions {
    batchSize?: number;
    maxBatches?: number;
    dutyCycle?: number;
    pauseMs?: number;
    maxDurationMs?: number;
    asyncCommit?: boolean;
    signal?: AbortSignal;
}
export declare const REPLAYED_HEADER = "Idempotent-Replayed";
export interface RunInput<Req> {
    options: AdapterOptions<Req>;
    request: Req;
    header: string | readonly string[] | undefined;
    required: boolean;
    fingerprintInput: () => FingerprintInput | Promise<FingerprintInput>;
    handler: (tx: Tx, key: string | undefined) => Promise<StoredResponse>;
    phased?: PhasedRoute | undefined;
}
export type RunResult = {
    kind: 'response';
    response: StoredResponse;
} | {
    kind: 'problem';
    problem: Problem;
    source: 'key' | 'outcome' | 'store';
};
export declare class StoreUnavailableError extends IdempotencyError {
    readonly code: 'SURETY_IDEMPOTENCY_STORE_UNAVAILABLE';
    constructor(options?: {
        cause?: unknown;
    });
}
export interface StoredInfo {
    tenant: string;
    bodyBytes: number;
    storedBytes: number;
    encoding: BodyEncoding;
}
export interface StoredResponse {
    status: number;
    headers: Record<string, string>;
    body: string;
    final?: boolean;
}
export declare function canonicalJson(value: unknown): string;
export declare function checkKey(value: string | readonly string[] | undefined): KeyCheck;
export declare const createIdempotency: (options: IdempotencyOptions) => Idempotency;
export declare function deriveKey(key: string, step: string): string;
export declare function describingHeaders(headers: Record<string, unknown> | Headers, names?: readonly string[]): Record<string, string>;
export declare function errorAnswer<Req>(input: {
    options: AdapterOptions<Req>;
    error: unknown;
    request: Req;
}): StoredResponse | undefined;
export declare function fingerprint({ method, url, body }: FingerprintInput): string;
export declare const isEffectFailedError: (value: unknown) => value is EffectFailedError;
export declare const isEffectRetryLaterError: (value: unknown) => value is EffectRetryLaterError;
export declare const isFinalStatus: (status: number) => boolean;
export declare const isIdempotencyError: (value: unknown) => value is IdempotencyError;
export declare const isLeaseLostError: (value: unknown) => value is LeaseLostError;
export declare const isNoTransactionError: (value: unknown) => value is NoTransactionError;
export declare const isStoreUnavailableError: (value: unknown) => value is StoreUnavailableError;
export declare const migrations: import("@surety/db").MigrationSet;
export declare function outcomeResponse(outcome: Seen): StoredResponse | Problem;
export declare function phasedOperation<I>(name: string, run: (flow: Flow, input: I) => Promise<StoredResponse>): PhasedOperation<I>;
export { problemBody } from "@surety/core";
export declare function readKey(value: string | readonly string[] | undefined, required: boolean): {
    kind: 'key';
    key: string | undefined;
} | {
    kind: 'problem';
    problem: Problem;
};
export declare function runIdempotent<Req>(input: RunInput<Req>): Promise<RunResult>;

// ===== @surety/idempotency/fastify
export interface FastifyIdempotencyOptions extends AdapterOptions<FastifyRequest> {
}
export declare const idempotency: FastifyPluginAsync<FastifyIdempotencyOptions>;
export declare const txOf: (request: FastifyRequest) => Tx;
export { idempotency as default }; // as in @surety/idempotency/fastify

// ===== @surety/idempotency/express
export interface ExpressIdempotency extends RequestHandler {
    errors: ErrorRequestHandler;
}
export interface ExpressIdempotencyOptions extends AdapterOptions<Request> {
    required?: boolean;
}
export declare function idempotency(options: ExpressIdempotencyOptions): ExpressIdempotency;
export declare function phased<I>(options: AdapterOptions<Request>, operation: PhasedOperation<I>, input: (req: Request, key: string) => I | Promise<I>): RequestHandler;
export declare const txOf: (req: Request) => Tx;
export { idempotency as default }; // as in @surety/idempotency/express

// ===== @surety/idempotency/hono
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
export { idempotency as default }; // as in @surety/idempotency/hono

// ===== @surety/idempotency/nestjs
export declare const IDEMPOTENCY_OPTIONS: unique symbol;
export declare class IdempotencyInterceptor implements NestInterceptor {
    private readonly options;
    constructor(options: NestIdempotencyOptions);
    intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>>;
}
export declare class IdempotencyTransaction {
    tx(): SuretyTx;
}
export declare function Idempotent(route?: IdempotentRoute): MethodDecorator;
export interface IdempotentRoute {
    required?: boolean;
    phased?: PhasedOperation<any>;
}
export interface NestIdempotencyOptions extends AdapterOptions<NestRequest> {
    required?: boolean;
}
export interface NestRequest {
    method: string;
    url: string;
    originalUrl?: string;
    headers: Record<string, string | string[] | undefined>;
    body?: unknown;
}
export declare class SuretyIdempotencyModule {
    static forRoot(options: NestIdempotencyOptions): DynamicModule;
}
export type Tx = SuretyTx;
export declare const Tx: () => ParameterDecorator;
export declare const txOf: (request: object) => SuretyTx;

// ===== @surety/idempotency/effects
export declare const EFFECT_RETRY_DEFAULTS: Required<EffectRetryOptions>;
export interface EffectContext<P> {
    readonly id: string;
    readonly tenant: string;
    readonly key: string;
    readonly derivedKey: string;
    readonly payload: P;
    readonly attempt: number;
    readonly signal: AbortSignal;
}
export interface EffectDefinition<P = unknown, R = unknown> extends EffectRetryOptions {
    readonly name: string;
    readonly run: (ctx: EffectContext<P>) => Promise<R>;
    readonly onSucceeded?: (tx: Tx, result: R, ctx: EffectContext<P>) => Promise<void>;
    readonly onFailed?: (tx: Tx, failure: EffectFailure, ctx: EffectContext<P>) => Promise<void>;
}
export interface EffectFailure {
    reason: 'permanent' | 'attempts_exhausted' | 'deadline_exceeded';
    error: string;
}
export interface EffectOutcome {
    id: string;
    name: string;
    attempt: number;
    kind: 'succeeded' | 'retried' | 'failed' | 'lost';
    delayMs?: number;
    error?: string;
}
export interface EffectRecord {
    id: string;
    tenant: string;
    name: string;
    key: string;
    state: 'pending' | 'running' | 'succeeded' | 'failed';
    attempts: number;
    runAt: string;
    deadlineAt: string;
    result: unknown;
    lastError: string | null;
    createdAt: string;
    finishedAt: string | null;
}
export interface EffectRetryOptions {
    deadlineMs?: number;
    maxAttempts?: number;
    baseDelayMs?: number;
    maxDelayMs?: number;
}
export interface EffectWorker {
    runOnce(): Promise<number>;
    start(): void;
    stop(): Promise<void>;
}
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
export type RetryDecision = {
    kind: 'retry';
    atMs: number;
    delayMs: number;
    deferredByBudget: boolean;
} | {
    kind: 'fail';
    reason: 'permanent' | 'attempts_exhausted' | 'deadline_exceeded';
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
export declare const createEffects: (options: EffectsOptions) => Effects;
export declare function decideRetry(input: RetryInput): RetryDecision;
export declare function defineEffect<P, R>(definition: EffectDefinition<P, R>): EffectDefinition<P, R>;

// ----- reachable, not exported: named by the declarations above, so their shape is part of the API
interface FastifyRequest {
    tx: Tx | undefined;
    idempotencyKey: string | undefined;
}
export interface PhasedRoute {
    operation: PhasedOperation<any>;
    input: (key: string) => unknown;
}
export type Seen = Exclude<Outcome, {
    kind: 'executed';
}>;
