// The public API of @surety/events (scripts/api-report.mjs; do not edit by hand).

// ===== . → ./dist/index.d.ts
// --- dist/index.d.ts
export { type AsyncApiDocument, type AsyncApiOptions, buildAsyncApi, DEFAULT_RETRY_SCHEDULE, SERVICE_CONTRACT_VERSION, serviceContract, toJson, toYaml, WEBHOOK_CHANNEL, } from "./asyncapi.js";
export { type DestinationChannel, withDestinations } from "./asyncapi-destinations.js";
export { type ContractsCliOptions, runContractsCli } from "./cli.js";
export { contractValidator } from "./contract-validator.js";
export { type ContractDiff, diffContracts, formatReport, isAllowedChange } from "./diff/contracts.js";
export type { ChangeKind, ContractChange } from "./diff/types.js";
export { EVENT_TYPE_PATTERN, type EventEnvelope } from "./envelope.js";
export { EventError, type EventErrorCode, type EventIssue, isEventError } from "./errors.js";
export type { JsonSchema } from "./json-schema.js";
export { createRegistry, type EventDefinition, EventRegistry, publishValidator, type RegisteredEvent, type RegistryOptions, type ValidationResult, } from "./registry.js";

// --- dist/asyncapi.d.ts
import type { EventRegistry, RegisteredEvent } from "./registry.js";
export declare const DEFAULT_RETRY_SCHEDULE: readonly string[];
export declare const WEBHOOK_CHANNEL = "webhooks";
export interface AsyncApiOptions {
    title?: string;
    version?: string;
    description?: string;
    serverUrl?: string;
    apiVersion?: string;
    retrySchedule?: readonly string[];
}
export declare const SERVICE_CONTRACT_VERSION = "1.0.0";
export interface AsyncApiDocument {
    asyncapi: string;
    info: {
        title: string;
        version: string;
        description?: string;
        [k: string]: unknown;
    };
    channels?: Record<string, unknown>;
    operations?: Record<string, unknown>;
    components?: {
        messages?: Record<string, unknown>;
        schemas?: Record<string, unknown>;
        [k: string]: unknown;
    };
    [k: string]: unknown;
}
export declare function buildAsyncApi(registry: EventRegistry | readonly RegisteredEvent[], options?: AsyncApiOptions): AsyncApiDocument;
export declare function serviceContract(registry: EventRegistry | readonly RegisteredEvent[], options?: AsyncApiOptions): AsyncApiDocument;
export declare function toYaml(doc: unknown): string;
export declare function toJson(doc: unknown): string;

// --- dist/registry.d.ts
import { EventError } from "./errors.js";
import { type JsonSchema } from "./json-schema.js";
export interface EventDefinition<T = unknown> {
    type: string;
    description: string;
    schema: JsonSchema;
    sample: T;
    version?: number;
    deprecated?: boolean;
    reserved?: boolean;
}
export interface RegisteredEvent {
    readonly type: string;
    readonly description: string;
    readonly schema: Readonly<JsonSchema>;
    readonly sample: unknown;
    readonly version: number;
    readonly deprecated: boolean;
    readonly reserved?: boolean;
}
export type ValidationResult = {
    kind: "valid";
    ok: true;
} | {
    kind: "invalid";
    ok: false;
    error: EventError;
};
export interface RegistryOptions {
    events?: readonly EventDefinition[];
    closed?: boolean;
    maxErrors?: number;
    allErrors?: boolean;
}
export declare class EventRegistry {
    #private;
    constructor(options?: RegistryOptions);
    register<T>(definition: EventDefinition<T>): this;
    has(type: string): boolean;
    get(type: string): RegisteredEvent | undefined;
    list(): RegisteredEvent[];
    validate(type: string, data: unknown): ValidationResult;
    readonly assertValid: (type: string, data: unknown) => void;
}
export declare function createRegistry(options?: RegistryOptions): EventRegistry;
export declare function validateEvent(registry: EventRegistry, type: string, data: unknown): ValidationResult;
export declare function publishValidator(registry: EventRegistry): (type: string, data: unknown) => void;

// --- dist/errors.d.ts
export interface EventIssue {
    path: string;
    message: string;
}
export type EventErrorCode = "SURETY_EVENT_UNKNOWN_TYPE" | "SURETY_EVENT_INVALID_PAYLOAD" | "SURETY_EVENT_INVALID_DEFINITION" | "SURETY_EVENT_DUPLICATE_TYPE" | "SURETY_CONTRACT_INVALID_DOCUMENT";
export declare class EventError extends Error {
    readonly code: EventErrorCode;
    readonly errors: EventIssue[];
    constructor(code: EventErrorCode, message: string, errors?: EventIssue[], options?: {
        cause?: unknown;
    });
}
export declare const isEventError: (value: unknown) => value is EventError;

// --- dist/json-schema.d.ts
export type JsonSchema = {
    [keyword: string]: unknown;
};
export declare const isObject: (v: unknown) => v is Record<string, unknown>;
export declare const cloneJson: <T>(v: T) => T;
export declare function jsonEqual(a: unknown, b: unknown): boolean;
export declare const pointerSegment: (s: string) => string;

// --- dist/asyncapi-destinations.d.ts
import type { AsyncApiDocument } from "./asyncapi.js";
export interface DestinationChannel {
    id: string;
    kind: "amqp" | "nats" | "mqtt";
    url: string;
    destination: {
        exchange?: string;
        routingKey?: string;
        subject?: string;
        topic?: string;
    };
    eventTypes: readonly string[];
    description?: string;
}
export declare function withDestinations(doc: AsyncApiDocument, destinations: readonly DestinationChannel[]): AsyncApiDocument;

// --- dist/cli.d.ts
import { type AsyncApiOptions } from "./asyncapi.js";
import type { EventRegistry } from "./registry.js";
export interface ContractsCliOptions {
    stdout?: (text: string) => void;
    stderr?: (text: string) => void;
    cwd?: string;
    registry?: EventRegistry;
    asyncapi?: AsyncApiOptions;
}
export declare function runContractsCli(argv: readonly string[], options?: ContractsCliOptions): Promise<number>;

// --- dist/contract-validator.d.ts
import type { ValidationResult } from "./registry.js";
export declare function contractValidator(doc: unknown): (body: unknown) => ValidationResult;

// --- dist/diff/contracts.d.ts
import type { ContractChange } from "./types.js";
export interface ContractDiff {
    changes: ContractChange[];
    breaking: boolean;
    oldVersion: string;
    newVersion: string;
}
export declare function diffContracts(oldDoc: unknown, newDoc: unknown): ContractDiff;
export declare const majorOf: (version: string) => number;
export declare function isAllowedChange(diff: ContractDiff): boolean;
export declare function formatReport(diff: ContractDiff): string;

// --- dist/diff/types.d.ts
export type ChangeKind = "event-type-removed" | "event-type-added" | "field-removed" | "field-renamed" | "type-changed" | "required-field-added" | "optional-field-added" | "field-now-required" | "field-now-optional" | "enum-narrowed" | "enum-widened" | "constraint-tightened" | "constraint-loosened" | "schema-changed" | "deprecated";
export interface ContractChange {
    kind: ChangeKind;
    path: string;
    eventType?: string;
    breaking: boolean;
    message: string;
}

// --- dist/envelope.d.ts
import type { JsonSchema } from "./json-schema.js";
export { type Envelope as EventEnvelope, EVENT_TYPE_PATTERN } from "@surety/core";
export declare function envelopeSchema(type: string, data: JsonSchema): JsonSchema;
export declare function webhookHeadersSchema(): JsonSchema;
