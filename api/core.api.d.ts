// The public API of @surety/core (scripts/api-report.mjs; do not edit by hand).

// ===== . → ./dist/index.d.ts
// --- dist/index.d.ts
export { brandError, hasBrand } from "./brand.js";
export type { Envelope } from "./envelope.js";
export { EVENT_TYPE_MAX_LENGTH, EVENT_TYPE_PATTERN, EVENT_TYPE_PATTERN_SOURCE, isEventType, } from "./event-type.js";
export { isProblemDocument, type ProblemDocument, parseProblem } from "./parse-problem.js";
export { PROBLEM_CONTENT_TYPE, PROBLEM_TYPE_BASE, type Problem, problemBody, problemType, } from "./problem.js";
export { parseRetryAfter } from "./retry-after.js";
export { DEFAULT_RETRY_SCHEDULE, formatDelay } from "./schedule.js";
export { errorCode, type PackageTracer, packageTracer, TRACED_RESPONSE_HEADERS, type TracingApi, traceableUrl, } from "./tracing.js";

// --- dist/brand.d.ts
export declare const hasBrand: (value: unknown, symbol: symbol) => boolean;
export declare function brandError<C extends abstract new (...args: never[]) => Error>(cls: C, key: string): (value: unknown) => value is InstanceType<C>;

// --- dist/envelope.d.ts
export interface Envelope<T = unknown> {
    id: string;
    type: string;
    apiVersion: string;
    createdAt: string;
    sequence: number;
    data: T;
}

// --- dist/event-type.d.ts
export declare const EVENT_TYPE_PATTERN: RegExp;
export declare const EVENT_TYPE_PATTERN_SOURCE: string;
export declare const EVENT_TYPE_MAX_LENGTH = 100;
export declare function isEventType(value: unknown): value is string;

// --- dist/parse-problem.d.ts
export interface ProblemDocument {
    type: string;
    title: string;
    status: number;
    detail: string;
    code: string;
    instance?: string;
    [extension: string]: unknown;
}
export declare function isProblemDocument(value: unknown): value is ProblemDocument;
export declare function parseProblem(text: string): ProblemDocument | undefined;

// --- dist/problem.d.ts
export interface Problem {
    status: number;
    code: string;
    title: string;
    detail: string;
    headers?: Record<string, string>;
    extensions?: Record<string, unknown>;
}
export declare const PROBLEM_CONTENT_TYPE = "application/problem+json";
export declare const PROBLEM_TYPE_BASE = "https://surety.dev/problems/";
export declare const problemType: (code: string) => string;
export declare function problemBody(problem: Problem, instance?: string): string;

// --- dist/retry-after.d.ts
export declare function parseRetryAfter(value: string | null | undefined, nowEpochMs: number): number | undefined;

// --- dist/schedule.d.ts
export declare const DEFAULT_RETRY_SCHEDULE: readonly number[];
export declare function formatDelay(seconds: number): string;

// --- dist/tracing.d.ts
export interface TracingApi<T> {
    trace: {
        getTracerProvider(): {
            getTracer(name: string, version?: string): T;
        };
    };
    ProxyTracerProvider: new () => {
        getDelegate(): unknown;
    };
}
export interface PackageTracer<T> {
    sdkRegistered(): boolean;
    tracer(): T;
}
export declare function packageTracer<T>(api: TracingApi<T>, name: string, version: string): PackageTracer<T>;
export declare const TRACED_RESPONSE_HEADERS: readonly string[];
export declare function traceableUrl(url: string): {
    full: string;
    host: string;
    port: number;
} | undefined;
export declare function errorCode(error: unknown): string;

// ===== ./node → ./dist/node.d.ts
// --- dist/node.d.ts
export declare const hashKey: (key: string) => string;
