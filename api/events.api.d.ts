// The public API of @surety/events: what each entry point exports (scripts/api-report.mjs; do not edit by hand).

// ===== @surety/events
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
export interface AsyncApiOptions {
    title?: string;
    version?: string;
    description?: string;
    serverUrl?: string;
    apiVersion?: string;
    retrySchedule?: readonly string[];
}
export type ChangeKind = 'event-type-removed' | 'event-type-added' | 'field-removed' | 'field-renamed' | 'type-changed' | 'required-field-added' | 'optional-field-added' | 'field-now-required' | 'field-now-optional' | 'enum-narrowed' | 'enum-widened' | 'constraint-tightened' | 'constraint-loosened' | 'schema-changed' | 'deprecated';
export interface ContractChange {
    kind: ChangeKind;
    path: string;
    eventType?: string;
    breaking: boolean;
    message: string;
}
export interface ContractDiff {
    changes: ContractChange[];
    breaking: boolean;
    oldVersion: string;
    newVersion: string;
}
export interface ContractsCliOptions {
    stdout?: (text: string) => void;
    stderr?: (text: string) => void;
    cwd?: string;
    registry?: EventRegistry;
    asyncapi?: AsyncApiOptions;
}
export declare const DEFAULT_RETRY_SCHEDULE: readonly string[];
export interface DestinationChannel {
    id: string;
    kind: 'amqp' | 'nats' | 'mqtt';
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
export { EVENT_TYPE_PATTERN } from "@surety/core";
export interface EventDefinition<T = unknown> {
    type: string;
    description: string;
    schema: JsonSchema;
    sample: T;
    version?: number;
    deprecated?: boolean;
    reserved?: boolean;
}
export { Envelope as EventEnvelope } from "@surety/core";
export declare class EventError extends Error {
    readonly code: EventErrorCode;
    readonly errors: EventIssue[];
    constructor(code: EventErrorCode, message: string, errors?: EventIssue[], options?: {
        cause?: unknown;
    });
}
export type EventErrorCode = 'SURETY_EVENT_UNKNOWN_TYPE' | 'SURETY_EVENT_INVALID_PAYLOAD' | 'SURETY_EVENT_INVALID_DEFINITION' | 'SURETY_EVENT_DUPLICATE_TYPE' | 'SURETY_CONTRACT_INVALID_DOCUMENT';
export interface EventIssue {
    path: string;
    message: string;
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
export type JsonSchema = {
    [keyword: string]: unknown;
};
export interface RegisteredEvent {
    readonly type: string;
    readonly description: string;
    readonly schema: Readonly<JsonSchema>;
    readonly sample: unknown;
    readonly version: number;
    readonly deprecated: boolean;
    readonly reserved?: boolean;
}
export interface RegistryOptions {
    events?: readonly EventDefinition[];
    closed?: boolean;
    maxErrors?: number;
    allErrors?: boolean;
}
export declare const SERVICE_CONTRACT_VERSION = "1.0.0";
export type ValidationResult = {
    kind: 'valid';
    ok: true;
} | {
    kind: 'invalid';
    ok: false;
    error: EventError;
};
export declare const WEBHOOK_CHANNEL = "webhooks";
export declare function buildAsyncApi(registry: EventRegistry | readonly RegisteredEvent[], options?: AsyncApiOptions): AsyncApiDocument;
export declare function contractValidator(doc: unknown): (body: unknown) => ValidationResult;
export declare function createRegistry(options?: RegistryOptions): EventRegistry;
export declare function diffContracts(oldDoc: unknown, newDoc: unknown): ContractDiff;
export declare function formatReport(diff: ContractDiff): string;
export declare function isAllowedChange(diff: ContractDiff): boolean;
export declare const isEventError: (value: unknown) => value is EventError;
export declare function publishValidator(registry: EventRegistry): (type: string, data: unknown) => void;
export declare function runContractsCli(argv: readonly string[], options?: ContractsCliOptions): Promise<number>;
export declare function serviceContract(registry: EventRegistry | readonly RegisteredEvent[], options?: AsyncApiOptions): AsyncApiDocument;
export declare function toJson(doc: unknown): string;
export declare function toYaml(doc: unknown): string;
export declare function withDestinations(doc: AsyncApiDocument, destinations: readonly DestinationChannel[]): AsyncApiDocument;
