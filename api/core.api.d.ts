// The public API of @surety/core: what each entry point exports (scripts/api-report.mjs; do not edit by hand).

// ===== @surety/core
export declare const DEFAULT_RETRY_SCHEDULE: readonly number[];
export declare const EVENT_TYPE_MAX_LENGTH = 100;
export declare const EVENT_TYPE_PATTERN: RegExp;
export declare const EVENT_TYPE_PATTERN_SOURCE: string;
export interface Envelope<T = unknown> {
    id: string;
    type: string;
    apiVersion: string;
    createdAt: string;
    sequence: number;
    data: T;
}
export declare const PROBLEM_CONTENT_TYPE = "application/problem+json";
export declare const PROBLEM_TYPE_BASE = "https://surety.dev/problems/";
export interface PackageTracer<T> {
    sdkRegistered(): boolean;
    tracer(): T;
}
export interface Problem {
    status: number;
    code: string;
    title: string;
    detail: string;
    headers?: Record<string, string>;
    extensions?: Record<string, unknown>;
}
export interface ProblemDocument {
    type: string;
    title: string;
    status: number;
    detail: string;
    code: string;
    instance?: string;
    [extension: string]: unknown;
}
export declare const TRACED_RESPONSE_HEADERS: readonly string[];
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
export declare function brandError<C extends abstract new (...args: never[]) => Error>(cls: C, key: string): (value: unknown) => value is InstanceType<C>;
export declare function errorCode(error: unknown): string;
export declare function formatDelay(seconds: number): string;
export declare const hasBrand: (value: unknown, symbol: symbol) => boolean;
export declare function isEventType(value: unknown): value is string;
export declare function isProblemDocument(value: unknown): value is ProblemDocument;
export declare function packageTracer<T>(api: TracingApi<T>, name: string, version: string): PackageTracer<T>;
export declare function parseProblem(text: string): ProblemDocument | undefined;
export declare function parseRetryAfter(value: string | null | undefined, nowEpochMs: number): number | undefined;
export declare function problemBody(problem: Problem, instance?: string): string;
export declare const problemType: (code: string) => string;
export declare function traceableUrl(url: string): {
    full: string;
    host: string;
    port: number;
} | undefined;

// ===== @surety/core/node
export interface CliIo {
    out: (text: string) => void;
    err: (text: string) => void;
}
export declare const hashKey: (key: string) => string;
export declare const stdio: CliIo;
