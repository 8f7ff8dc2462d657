// The public API of @surety/webhooks (scripts/api-report.mjs; do not edit by hand).

// ===== . → ./dist/index.d.ts
// --- dist/index.d.ts
export type { ListApplicationsInput } from "./applications/operations.js";
export { type AttemptAuth, AUTH_LIMITS, AUTH_TOKEN_FAILED, AUTH_TYPES, AuthTokenError, type BasicAuthInput, type EndpointAuth, type EndpointAuthInput, InvalidAuthError, isInvalidAuthError, type MtlsAuthInput, type OAuth2AuthInput, type ReceiverAuthOptions, } from "./auth/index.js";
export type { PostFn } from "./delivery/attempt.js";
export type { AttemptErrorCode, NotSentCode } from "./delivery/classify.js";
export { isOperationalEventType, type MonitorOptions, type MonitorReport, OPERATIONAL_EVENT_TYPES, type OperationalEvent, type OperationalEventType, runMonitor, } from "./delivery/operational.js";
export type { UnstorableHandling, UnstorableOutcome } from "./delivery/outcome-types.js";
export { createDeliveryWorker, DeliveryWorker } from "./delivery/worker.js";
export type { AttemptEvent, AttemptOutcome, WorkerEventMap } from "./delivery/worker-events.js";
export type { DeliveryWorkerOptions } from "./delivery/worker-options.js";
export type { BrokerCredentials, Destination, DestinationKind, RedactedCredentials, } from "./destinations/config.js";
export { DESTINATION_KINDS } from "./destinations/config.js";
export { type BrokerEndpointRow, BrokerError, type BrokerErrorCode, type BrokerPublisherOptions, type PublishFn, type SignedMessage, } from "./destinations/index.js";
export { MissingBrokerClientError } from "./destinations/peers.js";
export type { Envelope } from "./envelope.js";
export { envelopeJson } from "./envelope.js";
export type { WebhookErrorCode } from "./errors.js";
export { ApplicationNotFoundError, ApplicationUidTakenError, ClockSkewError, EndpointLimitError, EndpointNotFoundError, InvalidEventError, InvalidFilterError, InvalidHeadersError, InvalidInputError, isApplicationNotFoundError, isApplicationUidTakenError, isClockSkewError, isEndpointLimitError, isEndpointNotFoundError, isInvalidEventError, isInvalidFilterError, isInvalidHeadersError, isInvalidInputError, isNotPollEndpointError, isPollLimitError, isWebhookError, NotPollEndpointError, PollLimitError, WebhookError, } from "./errors.js";
export { FILTER_MAX_DATA_DEPTH } from "./filter/depth.js";
export { type Comparison, evaluateFilter, FILTER_LIMITS, FILTER_ROOTS, type FilterDocument, type FilterLiteral, type FilterNode, parseFilter, } from "./filter/index.js";
export { MAX_HEADER_NAME, MAX_HEADER_VALUE, MAX_HEADERS, MAX_HEADERS_SIZE, RESERVED_HEADER_PREFIXES, RESERVED_HEADERS, } from "./headers.js";
export { migrations } from "./migrations.js";
export type { AckPollInput, PollItem, PollPage, PollWaitsOptions, ReadPollInput } from "./poll/index.js";
export { MAX_CURSOR_LENGTH, MAX_POLL_LIMIT, PollWaits } from "./poll/index.js";
export type { AttemptRecord, DeliveryRecord, EndpointHealth, EventRecord, EventRef, ListAttemptsInput, ListDeliveriesInput, ListEndpointsInput, ListEventsInput, } from "./reads/operations.js";
export type { Page, PageInput } from "./reads/pages.js";
export type { HeldWindow, MaintainOptions, MaintenanceReport, WindowGap } from "./retention/maintain.js";
export { DEFAULT_SCHEDULE, nextDelay, parseRetryAfter, parseSchedule } from "./schedule.js";
export type { Backlog } from "./sql/backlog.js";
export { ALLOWED_CIDRS_ENV, allowListFromEnv, parseAllowList } from "./ssrf/allow-list.js";
export type { AllowList } from "./ssrf/classify.js";
export type { Application, ApplicationPatch, ApplicationRef, CircuitState, CreateApplicationInput, CreateEndpointInput, DeleteApplicationInput, DeleteEndpointInput, DisableEndpointInput, Endpoint, EndpointFilter, EndpointPatch, EndpointRef, PublishedEvent, PublishInput, RecoverEndpointInput, ReplayEventInput, RotateSecretInput, SecretEntry, ThrottleState, UpdateApplicationInput, UpdateEndpointInput, WebhooksOptions, } from "./types.js";
export { Webhooks } from "./webhooks.js";

// --- dist/applications/operations.d.ts
import { type Queryable, type Tx } from "@surety/db";
import { type WebhooksContext } from "../context.js";
import { type Page, type PageInput } from "../reads/pages.js";
import type { Application, ApplicationRef, CreateApplicationInput, DeleteApplicationInput, UpdateApplicationInput } from "../types.js";
export interface ListApplicationsInput extends PageInput {
    tenant: string;
}
export declare function createApplication(ctx: WebhooksContext, q: Queryable, input: CreateApplicationInput): Promise<Application>;
export declare function getApplication(ctx: WebhooksContext, q: Queryable, ref: ApplicationRef): Promise<Application | undefined>;
export declare function findApplication(ctx: WebhooksContext, q: Queryable, ref: ApplicationRef): Promise<Application | undefined>;
export declare function resolveApplication(ctx: WebhooksContext, q: Queryable, input: {
    tenant: string;
    ref: string;
    field: "applicationId" | "application";
}): Promise<string>;
export declare function listApplications(ctx: WebhooksContext, q: Queryable, input: ListApplicationsInput): Promise<Page<Application>>;
export declare function updateApplication(ctx: WebhooksContext, q: Queryable, input: UpdateApplicationInput): Promise<Application | undefined>;
export declare function deleteApplication(ctx: WebhooksContext, tx: Tx, input: DeleteApplicationInput): Promise<boolean>;

// --- dist/context.d.ts
import type { Queryable, Sql } from "@surety/db";
import { statements } from "./sql/index.js";
import type { AllowList } from "./ssrf/index.js";
import type { WebhooksOptions } from "./types.js";
export interface WebhooksContext {
    readonly sql: Sql;
    readonly st: ReturnType<typeof statements>;
    readonly schema: string;
    readonly apiVersion: string;
    readonly allowHttp: boolean;
    readonly allowList: AllowList;
    readonly maxEndpointsPerTenant: number;
    readonly validate: ((type: string, data: unknown) => void) | undefined;
    readonly channel: string;
    readonly wake: () => void;
    now: () => number;
    dbNow: (q: Queryable) => Promise<number>;
}
export declare function createContext(options: WebhooksOptions): WebhooksContext;
export declare const nowIso: (ctx: WebhooksContext) => string;

// --- dist/sql/index.d.ts
export declare function statements(schema: string): {
    circuitNotice: import("@surety/db").Statement;
    backlogCrossings: import("@surety/db").Statement;
    secretsExpiring: import("@surety/db").Statement;
    throttlesEnded: import("@surety/db").Statement;
    monitorLock: import("@surety/db").Statement;
    throttle: import("@surety/db").Statement;
    health: import("@surety/db").Statement;
    disable: import("@surety/db").Statement;
    complete: import("@surety/db").Statement;
    takeTokens: import("@surety/db").Statement;
    claim: import("@surety/db").Statement;
    claimTake: import("@surety/db").Statement;
    claimSettings: string;
    releaseSlots: import("@surety/db").Statement;
    publish: {
        tenant: import("@surety/db").Statement;
        application: import("@surety/db").Statement;
        endpoint: import("@surety/db").Statement;
    };
    tables: {
        EP: string;
        EV: string;
        D: string;
        A: string;
        WS: string;
        T: string;
        AP: string;
        K: string;
        P: string;
        qs: string;
        schema: string;
    };
};
export type Statements = ReturnType<typeof statements>;

// --- dist/ssrf/index.d.ts
export { ALLOWED_CIDRS_ENV, allowListFromEnv, parseAllowList } from "./allow-list.js";
export { type AddressCategory, type AddressClassification, type AllowList, classifyAddress, isAllowListed, isBlockedAddress, } from "./classify.js";
export { type Connector, createGuardedDispatcher, type GuardedDispatcher, type GuardOptions, guardConnector, type ResolvedGuardOptions, } from "./dispatcher.js";
export { AllowListError, type BlockedAddress, DeliveryError, type DeliveryErrorCode, DnsError, isDeliveryError, isSsrfBlockedError, SsrfBlockedError, WebhookUrlError, } from "./errors.js";
export type { Cidr } from "./ip.js";
export { type GuardedPostOptions, type GuardedResponse, guardedPost, toDeliveryError } from "./post.js";
export { type ResolvedAddress, type Resolver, type ResolveTargetOptions, resolveTarget, systemResolver, type TargetCheck, } from "./resolve.js";
export { type UrlRejectionReason, type UrlValidation, type UrlValidationOptions, validateWebhookUrl, } from "./validate-url.js";

// --- dist/ssrf/allow-list.d.ts
import type { AllowList } from "./classify.js";
export declare const ALLOWED_CIDRS_ENV = "SURETY_WEBHOOK_ALLOWED_CIDRS";
export declare function parseAllowList(value: string | readonly string[] | undefined, source?: string): AllowList;
export declare function allowListFromEnv(env?: NodeJS.ProcessEnv): AllowList;

// --- dist/ssrf/classify.d.ts
import { type Cidr } from "./ip.js";
export type AddressCategory = "global" | "unspecified" | "this-network" | "loopback" | "private" | "cgnat" | "link-local" | "cloud-metadata" | "ietf-protocol" | "documentation" | "benchmarking" | "6to4-relay" | "multicast" | "broadcast" | "reserved" | "ipv4-compatible" | "nat64-local" | "discard" | "teredo" | "6to4" | "unique-local" | "site-local" | "invalid";
export interface AddressClassification {
    readonly address: string;
    readonly family: 4 | 6 | undefined;
    readonly category: AddressCategory;
    readonly range?: string;
    readonly blocked: boolean;
    readonly embedded?: AddressClassification;
}
export declare function classifyAddress(ip: string): AddressClassification;
export type AllowList = readonly Cidr[];
export declare function isAllowListed(address: string, allowList: AllowList): boolean;
export declare function isBlockedAddress(address: string, allowList?: AllowList): boolean;

// --- dist/ssrf/ip.d.ts
export interface IpBytes {
    readonly family: 4 | 6;
    readonly bytes: Uint8Array;
}
export interface Cidr {
    readonly family: 4 | 6;
    readonly bytes: Uint8Array;
    readonly prefix: number;
    readonly text: string;
}
export declare function stripBrackets(host: string): string;
export declare function parseIp(text: string): IpBytes | undefined;
export declare function formatIp(ip: IpBytes): string;
export declare function embeddedIPv4(ip: IpBytes, offset: number): IpBytes;
export declare function inCidr(ip: IpBytes, cidr: Cidr): boolean;
export declare function parseCidr(text: string): Cidr | string;
export declare function cidr(text: string): Cidr;

// --- dist/ssrf/dispatcher.d.ts
import { buildConnector, type Dispatcher } from "undici";
import type { AllowList } from "./classify.js";
import { type Resolver, type TargetCheck } from "./resolve.js";
export type Connector = buildConnector.connector;
export interface GuardOptions {
    allowList?: AllowList;
    allowHttp?: boolean;
    resolver?: Resolver;
    connectTimeoutMs?: number;
    timeoutMs?: number;
    maxResponseBytes?: number;
    maxUrlLength?: number;
    proxy?: string | URL;
    connector?: Connector;
    tls?: {
        ca?: string | Buffer | Array<string | Buffer>;
        rejectUnauthorized?: boolean;
        cert?: string | Buffer;
        key?: string | Buffer;
    };
    onCheck?: (check: TargetCheck) => void;
}
export interface ResolvedGuardOptions {
    readonly allowList: AllowList;
    readonly allowHttp: boolean;
    readonly resolver: Resolver;
    readonly connectTimeoutMs: number;
    readonly timeoutMs: number;
    readonly maxResponseBytes: number;
    readonly maxUrlLength: number;
    readonly proxy: string | undefined;
}
export interface GuardedDispatcher {
    readonly dispatcher: Dispatcher;
    readonly options: ResolvedGuardOptions;
    close(): Promise<void>;
}
export declare const guardDefaults: {
    readonly allowHttp: false;
    readonly connectTimeoutMs: 5000;
    readonly timeoutMs: 10000;
    readonly maxResponseBytes: number;
    readonly maxUrlLength: 2048;
};
export declare function createGuardedDispatcher(options?: GuardOptions): GuardedDispatcher;
export declare function guardConnector(base: Connector, options: Pick<ResolvedGuardOptions, "allowList" | "resolver" | "connectTimeoutMs"> & {
    onCheck?: ((check: TargetCheck) => void) | undefined;
}): Connector;

// --- dist/ssrf/resolve.d.ts
import { type AllowList } from "./classify.js";
import { type BlockedAddress } from "./errors.js";
export interface ResolvedAddress {
    readonly address: string;
    readonly family: 4 | 6;
}
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;
export declare const systemResolver: Resolver;
export interface TargetCheck {
    readonly hostname: string;
    readonly addresses: readonly string[];
    readonly address?: string;
    readonly family?: 4 | 6;
    readonly blocked: readonly BlockedAddress[];
}
export interface ResolveTargetOptions {
    resolver?: Resolver;
    allowList?: AllowList;
    timeoutMs?: number;
}
export declare function resolveTarget(hostname: string, options?: ResolveTargetOptions): Promise<TargetCheck & {
    address: string;
    family: 4 | 6;
}>;

// --- dist/ssrf/errors.d.ts
export type DeliveryErrorCode = "invalid_url" | "ssrf_blocked" | "dns_failed" | "connect_timeout" | "timeout" | "tls_error" | "connection_error";
export declare class DeliveryError extends Error {
    readonly code: DeliveryErrorCode;
    constructor(code: DeliveryErrorCode, message: string, options?: {
        cause?: unknown;
    });
}
export interface BlockedAddress {
    readonly address: string;
    readonly category: string;
}
export declare class SsrfBlockedError extends DeliveryError {
    readonly code: "ssrf_blocked";
    readonly hostname: string;
    readonly blocked: readonly BlockedAddress[];
    readonly addresses: readonly string[];
    constructor(hostname: string, blocked: readonly BlockedAddress[], addresses?: readonly string[]);
}
export declare class DnsError extends DeliveryError {
    readonly code: "dns_failed";
    readonly hostname: string;
    constructor(hostname: string, message: string, options?: {
        cause?: unknown;
    });
}
export declare class WebhookUrlError extends DeliveryError {
    readonly code: "invalid_url";
    readonly reason: string;
    constructor(reason: string, message: string);
}
export declare class AllowListError extends Error {
    readonly code = "invalid_allow_list";
    constructor(message: string);
}
export declare function isDeliveryError(error: unknown): error is DeliveryError;
export declare function isSsrfBlockedError(error: unknown): error is SsrfBlockedError;
export declare function isTlsErrorCode(code: string): boolean;

// --- dist/ssrf/post.d.ts
import type { IncomingHttpHeaders } from "node:http";
import type { GuardedDispatcher } from "./dispatcher.js";
import { DeliveryError } from "./errors.js";
export interface GuardedPostOptions {
    headers?: Record<string, string>;
    body?: string | Uint8Array;
    timeoutMs?: number;
    maxResponseBytes?: number;
    signal?: AbortSignal;
}
export interface GuardedResponse {
    readonly status: number;
    readonly headers: IncomingHttpHeaders;
    readonly bodyExcerpt: string;
    readonly truncated: boolean;
    readonly durationMs: number;
}
export declare function guardedPost(guard: GuardedDispatcher, url: string | URL, options?: GuardedPostOptions): Promise<GuardedResponse>;
export declare function toDeliveryError(error: unknown, signal?: AbortSignal): DeliveryError;

// --- dist/ssrf/validate-url.d.ts
import { type AddressClassification, type AllowList } from "./classify.js";
export type UrlRejectionReason = "invalid_url" | "url_too_long" | "unsupported_protocol" | "https_required" | "credentials_in_url" | "fragment_in_url" | "missing_host" | "invalid_port" | "blocked_address";
export interface UrlValidationOptions {
    allowHttp?: boolean;
    maxLength?: number;
    allowList?: AllowList;
}
export type UrlValidation = {
    readonly kind: "valid";
    readonly ok: true;
    readonly url: URL;
    readonly address?: AddressClassification;
} | {
    readonly kind: "invalid";
    readonly ok: false;
    readonly reason: UrlRejectionReason;
    readonly message: string;
    readonly address?: AddressClassification;
};
export declare function validateWebhookUrl(input: string | URL, options?: UrlValidationOptions): UrlValidation;
export declare function classifyLiteralHost(hostname: string): AddressClassification | undefined;

// --- dist/types.d.ts
import type { Sql } from "@surety/db";
import type { AllowList } from "./ssrf/index.js";
export interface WebhooksOptions {
    sql: Sql;
    schema?: string;
    apiVersion?: string;
    allowHttp?: boolean;
    allowList?: AllowList;
    validate?: (type: string, data: unknown) => void;
    now?: () => number;
    maxEndpointsPerTenant?: number;
}
export interface PublishInput {
    tenant: string;
    type: string;
    data: unknown;
    resource?: string;
    id?: string;
    endpointId?: string;
    application?: string;
    exceptEndpointId?: string;
}
export interface PublishedEvent {
    id: string;
    sequence: number;
    createdAt: string;
    deliveries: number;
    applicationId: string | null;
}
export interface ReplayEventInput {
    tenant: string;
    eventId: string;
    endpointId?: string;
}
export interface RecoverEndpointInput {
    tenant: string;
    endpointId: string;
    since: Date;
}
export type * from "./applications/types.js";
export type * from "./endpoints/types.js";

// --- dist/applications/types.d.ts
export interface Application {
    id: string;
    uid: string | null;
    name: string;
    metadata: Record<string, string>;
    version: number;
    createdAt: string;
    updatedAt: string;
}
export interface CreateApplicationInput {
    tenant: string;
    uid?: string | null;
    name: string;
    metadata?: Record<string, string>;
}
export interface ApplicationRef {
    tenant: string;
    id: string;
}
export type ApplicationPatch = Partial<Pick<CreateApplicationInput, "uid" | "name" | "metadata">>;
export interface UpdateApplicationInput extends ApplicationRef {
    ifVersion: number;
    patch: ApplicationPatch;
}
export interface DeleteApplicationInput extends ApplicationRef {
    ifVersion?: number;
}

// --- dist/endpoints/types.d.ts
import type { EndpointAuth, EndpointAuthInput } from "../auth/config.js";
import type { BrokerCredentials, Destination, DestinationKind, RedactedCredentials } from "../destinations/config.js";
export interface SecretEntry {
    secret: string;
    expiresAt: string | null;
}
export interface Endpoint {
    id: string;
    applicationId: string | null;
    url: string;
    description: string;
    eventTypes: string[];
    format: "surety" | "standard";
    status: "enabled" | "disabled";
    disabledReason: string | null;
    disabledAt: string | null;
    retrySchedule: number[] | null;
    rateLimit: number | null;
    ordered: boolean;
    traceContext: boolean;
    headers: Record<string, string>;
    filter: EndpointFilter | null;
    kind: DestinationKind;
    destination: Destination | null;
    credentials: RedactedCredentials | null;
    auth: EndpointAuth | null;
    version: number;
    createdAt: string;
    updatedAt: string;
    lastSuccessAt: string | null;
    lastFailureAt: string | null;
    failingSince: string | null;
    circuit: CircuitState;
    throttle: ThrottleState;
}
export interface ThrottleState {
    state: "none" | "throttled" | "paused";
    inFlightCap: number | null;
    rate: number | null;
    since: string | null;
    until: string | null;
    pausedUntil: string | null;
    decreases: number;
}
export interface CircuitState {
    state: "closed" | "open" | "half_open";
    consecutiveFailures: number;
    openedAt: string | null;
    nextProbeAt: string | null;
}
export interface CreateEndpointInput {
    tenant: string;
    url?: string;
    kind?: DestinationKind;
    destination?: unknown;
    credentials?: BrokerCredentials | null;
    eventTypes: string[];
    description?: string;
    format?: "surety" | "standard";
    retrySchedule?: number[] | null;
    rateLimit?: number | null;
    ordered?: boolean;
    traceContext?: boolean;
    applicationId?: string;
    headers?: Record<string, string>;
    filter?: EndpointFilter | null;
    auth?: EndpointAuthInput | null;
}
export type EndpointFilter = {
    [key: string]: unknown;
};
export interface EndpointRef {
    tenant: string;
    id: string;
}
export type EndpointPatch = Partial<Pick<CreateEndpointInput, "url" | "eventTypes" | "description" | "format" | "retrySchedule" | "rateLimit" | "ordered" | "traceContext" | "headers" | "filter" | "destination" | "credentials" | "auth">>;
export interface UpdateEndpointInput extends EndpointRef {
    ifVersion: number;
    patch: EndpointPatch;
}
export interface DeleteEndpointInput extends EndpointRef {
    ifVersion?: number;
}
export interface DisableEndpointInput extends EndpointRef {
    reason: string;
}
export interface RotateSecretInput extends EndpointRef {
    overlapMs?: number;
}

// --- dist/auth/config.d.ts
export interface BasicAuthInput {
    type: "basic";
    username: string;
    password: string;
}
export interface OAuth2AuthInput {
    type: "oauth2";
    tokenUrl: string;
    clientId: string;
    clientSecret: string;
    scope?: string | null;
    audience?: string | null;
    clientAuth?: "basic" | "body";
}
export interface MtlsAuthInput {
    type: "mtls";
    certificate: string;
    privateKey: string;
    ca?: string | null;
}
export type EndpointAuthInput = BasicAuthInput | OAuth2AuthInput | MtlsAuthInput;
export type StoredAuth = {
    type: "basic";
    username: string;
    password: string;
} | {
    type: "oauth2";
    tokenUrl: string;
    clientId: string;
    clientSecret: string;
    scope: string | null;
    audience: string | null;
    clientAuth: "basic" | "body";
} | {
    type: "mtls";
    certificate: string;
    privateKey: string;
    ca: string | null;
    fingerprint: string;
    notAfter: string;
    subject: string;
};
export type EndpointAuth = {
    type: "basic";
    username: string;
} | {
    type: "oauth2";
    tokenUrl: string;
    clientId: string;
    scope: string | null;
    audience: string | null;
    clientAuth: "basic" | "body";
} | {
    type: "mtls";
    certificateFingerprint: string;
    notAfter: string;
    subject: string;
};
export declare const AUTH_TYPES: readonly [
    "basic",
    "oauth2",
    "mtls"
];
export declare const AUTH_LIMITS: {
    readonly username: 256;
    readonly password: 1024;
    readonly clientId: 256;
    readonly clientSecret: 1024;
    readonly scope: 1024;
    readonly audience: 1024;
    readonly tokenUrl: 2048;
    readonly certificate: 16384;
    readonly privateKey: 16384;
    readonly ca: 65536;
};
export declare function checkAuth(input: unknown, options: {
    checkUrl: (url: string) => string;
    nowMs: number;
}): StoredAuth | null;
export declare function redactAuth(auth: StoredAuth | null): EndpointAuth | null;

// --- dist/destinations/config.d.ts
import { type AllowList } from "../ssrf/index.js";
export type DestinationKind = "webhook" | "amqp" | "nats" | "mqtt" | "poll";
export type BrokerKind = Exclude<DestinationKind, "webhook" | "poll">;
export declare const DESTINATION_KINDS: readonly DestinationKind[];
export type Destination = Record<string, never> | {
    exchange: string;
    routingKey: string;
} | {
    subject: string;
} | {
    topic: string;
    qos: 1;
};
export interface BrokerCredentials {
    username: string;
    password: string;
}
export interface RedactedCredentials {
    username: string;
    password: "[redacted]";
}
export declare function defaultPort(url: URL): number;
export declare function checkBrokerUrl(kind: BrokerKind, input: string, options: {
    allowHttp: boolean;
    allowList: AllowList;
}): {
    url: string;
    credentials: BrokerCredentials | null;
};
export declare function checkDestination(kind: DestinationKind, input: unknown): Destination;
export declare function checkCredentials(input: unknown): BrokerCredentials | null;
export declare const redact: (c: BrokerCredentials | null) => RedactedCredentials | null;
export declare const expand: (template: string, type: string) => string;
export interface CheckedDestination {
    url: string;
    destinationJson: string;
    credentialsJson: string | null;
}
export declare function checkEndpointDestination(input: {
    kind?: unknown;
    url?: string | undefined;
    destination?: unknown;
    credentials?: unknown;
}, options: {
    allowHttp: boolean;
    allowList: AllowList;
    checkWebhookUrl: (url: string) => string;
}): CheckedDestination & {
    kind: DestinationKind;
};

// --- dist/reads/pages.d.ts
import { type CursorPart, type CursorValues, type KeysetCursor } from "@surety/db";
export interface Page<T> {
    data: T[];
    hasMore: boolean;
    nextCursor: string | null;
}
export declare const BY_TIME: KeysetCursor<readonly [
    "timestamp",
    "text"
]>;
export interface KeyedRow {
    created_at_us: string;
    id: string;
}
export declare const byTimeKey: (r: KeyedRow) => [
    string,
    string
];
export declare function decode<P extends readonly CursorPart[]>(codec: KeysetCursor<P>, cursor: string): CursorValues<P>;
export declare function page<T, R, P extends readonly CursorPart[]>(rows: R[], limit: number, map: (r: R) => T, codec: KeysetCursor<P>, key: (r: R) => CursorValues<P>): Page<T>;
export interface PageInput {
    limit?: number;
    cursor?: string;
}

// --- dist/auth/index.d.ts
import { type GuardedDispatcher, type GuardedPostOptions, type GuardedResponse, type GuardOptions } from "../ssrf/index.js";
import type { StoredAuth } from "./config.js";
import { TokenCache, type TokenCacheOptions } from "./token.js";
export type { BasicAuthInput, EndpointAuth, EndpointAuthInput, MtlsAuthInput, OAuth2AuthInput, StoredAuth, } from "./config.js";
export { AUTH_LIMITS, AUTH_TYPES, checkAuth, redactAuth } from "./config.js";
export { InvalidAuthError, isInvalidAuthError } from "./errors.js";
export { MtlsDispatchers } from "./mtls.js";
export { AUTH_TOKEN_FAILED, AuthTokenError, TokenCache, type TokenCacheOptions } from "./token.js";
export interface AttemptAuth {
    endpoint: string;
    config: StoredAuth;
}
export type ReceiverAuthOptions = Omit<TokenCacheOptions, "guard"> & {
    maxMtlsEndpoints?: number;
};
export declare class ReceiverAuth {
    #private;
    readonly tokens: TokenCache;
    constructor(input: {
        guard: GuardedDispatcher;
        guardOptions: GuardOptions;
        options?: ReceiverAuthOptions;
    });
    post(url: string, request: GuardedPostOptions, auth: AttemptAuth): Promise<GuardedResponse>;
    close(): Promise<void>;
}

// --- dist/auth/token.d.ts
import { type GuardedDispatcher } from "../ssrf/index.js";
import type { StoredAuth } from "./config.js";
type OAuth2 = Extract<StoredAuth, {
    type: "oauth2";
}>;
export declare const AUTH_TOKEN_FAILED = "auth_token_failed";
export declare class AuthTokenError extends Error {
    readonly code = "auth_token_failed";
    constructor(message: string, options?: {
        cause?: unknown;
    });
}
export interface TokenCacheOptions {
    guard: GuardedDispatcher;
    now?: () => number;
    marginMs?: number;
    defaultLifetimeMs?: number;
    maxLifetimeMs?: number;
    timeoutMs?: number;
    maxResponseBytes?: number;
    failureHoldMs?: number;
    maxEntries?: number;
}
export declare class TokenCache {
    #private;
    requests: number;
    constructor(options: TokenCacheOptions);
    get(endpoint: string, auth: OAuth2): Promise<string>;
    invalidate(endpoint: string, token: string): void;
    clear(): void;
}
export {};

// --- dist/auth/errors.d.ts
import { WebhookError } from "../errors.js";
export declare class InvalidAuthError extends WebhookError {
    readonly errors: {
        path: string;
        message: string;
    }[];
    readonly code: "SURETY_INVALID_AUTH";
    constructor(message: string, errors?: {
        path: string;
        message: string;
    }[]);
}
export declare const isInvalidAuthError: (value: unknown) => value is InvalidAuthError;

// --- dist/errors.d.ts
export type WebhookErrorCode = "SURETY_INVALID_URL" | "SURETY_INVALID_EVENT" | "SURETY_INVALID_INPUT" | "SURETY_INVALID_HEADERS" | "SURETY_INVALID_FILTER" | "SURETY_INVALID_AUTH" | "SURETY_INVALID_CURSOR" | "SURETY_ENDPOINT_NOT_FOUND" | "SURETY_ENDPOINT_LIMIT" | "SURETY_APPLICATION_NOT_FOUND" | "SURETY_APPLICATION_UID_TAKEN" | "SURETY_OUTCOME_UNSTORABLE" | "SURETY_CLOCK_SKEW" | "SURETY_NOT_POLL_ENDPOINT" | "SURETY_POLL_LIMIT";
export declare class WebhookError extends Error {
    readonly code: WebhookErrorCode;
    constructor(code: WebhookErrorCode, message: string, options?: {
        cause?: unknown;
    });
}
export declare class InvalidEventError extends WebhookError {
    readonly errors: {
        path: string;
        message: string;
    }[];
    readonly code: "SURETY_INVALID_EVENT";
    constructor(message: string, errors?: {
        path: string;
        message: string;
    }[]);
}
export declare class InvalidInputError extends WebhookError {
    readonly errors: {
        path: string;
        message: string;
    }[];
    readonly code: "SURETY_INVALID_INPUT";
    constructor(message: string, errors?: {
        path: string;
        message: string;
    }[]);
}
export declare class InvalidHeadersError extends WebhookError {
    readonly errors: {
        path: string;
        message: string;
    }[];
    readonly code: "SURETY_INVALID_HEADERS";
    constructor(message: string, errors?: {
        path: string;
        message: string;
    }[]);
}
export declare class InvalidFilterError extends WebhookError {
    readonly errors: {
        path: string;
        message: string;
    }[];
    readonly code: "SURETY_INVALID_FILTER";
    constructor(message: string, errors?: {
        path: string;
        message: string;
    }[]);
}
export declare class EndpointNotFoundError extends WebhookError {
    readonly code: "SURETY_ENDPOINT_NOT_FOUND";
    constructor();
}
export declare class EndpointLimitError extends WebhookError {
    readonly limit: number;
    readonly code: "SURETY_ENDPOINT_LIMIT";
    constructor(limit: number);
}
export declare class ApplicationNotFoundError extends WebhookError {
    readonly field?: "applicationId" | "application" | undefined;
    readonly code: "SURETY_APPLICATION_NOT_FOUND";
    constructor(field?: "applicationId" | "application" | undefined);
}
export declare class ApplicationUidTakenError extends WebhookError {
    readonly uid: string;
    readonly code: "SURETY_APPLICATION_UID_TAKEN";
    constructor(uid: string);
}
export declare class ClockSkewError extends WebhookError {
    readonly skewMs: number;
    readonly maxClockSkewMs: number;
    readonly code: "SURETY_CLOCK_SKEW";
    constructor(skewMs: number, maxClockSkewMs: number);
}
export declare class NotPollEndpointError extends WebhookError {
    readonly kind: string;
    readonly code: "SURETY_NOT_POLL_ENDPOINT";
    constructor(kind: string);
}
export declare class PollLimitError extends WebhookError {
    readonly limit: number;
    readonly code: "SURETY_POLL_LIMIT";
    constructor(limit: number);
}
export declare const isWebhookError: (value: unknown) => value is WebhookError;
export declare const isNotPollEndpointError: (value: unknown) => value is NotPollEndpointError;
export declare const isPollLimitError: (value: unknown) => value is PollLimitError;
export declare const isEndpointLimitError: (value: unknown) => value is EndpointLimitError;
export declare const isInvalidEventError: (value: unknown) => value is InvalidEventError;
export declare const isInvalidInputError: (value: unknown) => value is InvalidInputError;
export declare const isEndpointNotFoundError: (value: unknown) => value is EndpointNotFoundError;
export declare const isApplicationNotFoundError: (value: unknown) => value is ApplicationNotFoundError;
export declare const isApplicationUidTakenError: (value: unknown) => value is ApplicationUidTakenError;
export declare const isInvalidHeadersError: (value: unknown) => value is InvalidHeadersError;
export declare const isInvalidFilterError: (value: unknown) => value is InvalidFilterError;
export declare const isClockSkewError: (value: unknown) => value is ClockSkewError;

// --- dist/auth/mtls.d.ts
import { type GuardedDispatcher, type GuardOptions } from "../ssrf/index.js";
import type { StoredAuth } from "./config.js";
type Mtls = Extract<StoredAuth, {
    type: "mtls";
}>;
export declare class MtlsDispatchers {
    #private;
    constructor(options: {
        guard: GuardOptions;
        maxEntries?: number;
    });
    for(endpoint: string, auth: Mtls): GuardedDispatcher;
    close(): Promise<void>;
}
export {};

// --- dist/delivery/attempt.d.ts
import type { AttemptAuth } from "../auth/index.js";
import type { PublishFn } from "../destinations/index.js";
import type { Claimed } from "../sql/claim.js";
import type { GuardedResponse } from "../ssrf/index.js";
import type { AttemptResult, Classification } from "./classify.js";
import type { Completion } from "./outcome-writer.js";
export type PostFn = (url: string, request: {
    headers: Record<string, string>;
    body: string;
    timeoutMs: number;
    auth?: AttemptAuth;
}) => Promise<Pick<GuardedResponse, "status" | "headers" | "bodyExcerpt">>;
export interface Sent {
    result: AttemptResult;
    excerpt: string | null;
    errorMessage: string | null;
}
export declare function sendAttempt(input: {
    row: Claimed;
    post: PostFn;
    publish?: PublishFn | undefined;
    timeoutMs: number;
    startedMs: number;
}): Promise<Sent>;
export declare function completionOf(input: {
    row: Claimed;
    sent: Sent;
    classification: Classification;
    startedMs: number;
    durationMs: number;
}): Completion;
export declare function deferral(row: Claimed, nowMs: number, waitMs: number): Completion;

// --- dist/destinations/index.d.ts
import type { AllowList, Resolver } from "../ssrf/index.js";
import type { BrokerCredentials, Destination, DestinationKind } from "./config.js";
import { BrokerPool, type PoolOptions } from "./pool.js";
import type { BrokerTlsOptions, SignedMessage } from "./types.js";
export type { BrokerErrorCode } from "./errors.js";
export { BrokerError } from "./errors.js";
export type { SignedMessage } from "./types.js";
export interface BrokerEndpointRow {
    tenant: string;
    endpoint_id: string;
    kind: DestinationKind;
    url: string | null;
    destination: Destination;
    credentials: BrokerCredentials | null;
}
export type PublishFn = (row: BrokerEndpointRow, message: SignedMessage, timeoutMs: number) => Promise<void>;
export interface BrokerPublisherOptions extends PoolOptions {
    allowList: AllowList;
    resolver?: Resolver;
    connectTimeoutMs?: number;
    tls?: BrokerTlsOptions;
}
export declare function createBrokerPublisher(options: BrokerPublisherOptions): {
    publish: PublishFn;
    close: () => Promise<void>;
    pool: BrokerPool;
};

// --- dist/destinations/pool.d.ts
import type { BrokerDriver, BrokerTarget, SignedMessage } from "./types.js";
export interface PoolOptions {
    maxLifetimeMs?: number;
    idleMs?: number;
    maxConnections?: number;
    now?: () => number;
}
export declare class BrokerPool {
    #private;
    constructor(options?: PoolOptions);
    get size(): number;
    send<C>(driver: BrokerDriver<C>, key: string, target: BrokerTarget, message: SignedMessage, signal: AbortSignal): Promise<void>;
    sweep(): void;
    close(): Promise<void>;
}

// --- dist/destinations/types.d.ts
import type { Destination } from "./config.js";
export interface BrokerTarget {
    url: URL;
    address: string;
    family: 4 | 6;
    port: number;
    tls: boolean;
    servername: string;
    tlsOptions: BrokerTlsOptions;
    credentials: {
        username: string;
        password: string;
    } | null;
    destination: Destination;
    connectTimeoutMs: number;
    timeoutMs: number;
}
export interface BrokerTlsOptions {
    ca?: string | Buffer | Array<string | Buffer>;
    rejectUnauthorized?: boolean;
}
export interface SignedMessage {
    id: string;
    type: string;
    body: string;
    headers: Record<string, string>;
}
export interface BrokerDriver<C> {
    connect(target: BrokerTarget, signal: AbortSignal): Promise<C>;
    send(connection: C, target: BrokerTarget, message: SignedMessage, signal: AbortSignal): Promise<void>;
    usable(connection: C): boolean;
    close(connection: C): Promise<void>;
}

// --- dist/destinations/errors.d.ts
export type BrokerErrorCode = "missing_peer" | "auth_failed" | "not_authorized" | "unroutable" | "broker_nack" | "connect_timeout" | "timeout" | "tls_error" | "connection_error";
export declare class BrokerError extends Error {
    readonly code: BrokerErrorCode;
    constructor(code: BrokerErrorCode, message: string, options?: {
        cause?: unknown;
    });
}
export declare function socketError(error: unknown, what: string): BrokerError;
export declare function untilAborted<T>(promise: Promise<T>, signal: AbortSignal, make: () => BrokerError): Promise<T>;

// --- dist/sql/claim.d.ts
import type { Queryable, Sql } from "@surety/db";
import type { Claimed } from "./claimed.js";
import { type Names } from "./schema.js";
import { type TokenStatements } from "./tokens.js";
export type { Claimed } from "./claimed.js";
export declare function claimStatements({ schema, D, EV, EP, WS, st }: Names): {
    claim: import("@surety/db").Statement;
    claimTake: import("@surety/db").Statement;
    claimSettings: string;
    releaseSlots: import("@surety/db").Statement;
};
type ClaimStatements = ReturnType<typeof claimStatements>;
export interface SlotCount {
    tenant: string;
    endpointId: string;
    n: number;
}
export declare function claimDeliveries(sql: Sql, st: ClaimStatements & TokenStatements, input: {
    nowMs: number;
    limit: number;
    leaseMs: number;
    workerId: string;
    claimWindow: number;
    maxInFlightPerEndpoint: number;
    maxInFlightPerTenant: number;
    mine: readonly SlotCount[];
}): Promise<{
    rows: Claimed[];
    allowed: Set<string>;
    held: string[];
}>;
export type ClaimParams = readonly [
    now: string,
    limit: number,
    leaseUntil: string,
    workerId: string,
    claimWindow: number,
    maxInFlightPerEndpoint: number,
    maxInFlightPerTenant: number,
    mineTenants: readonly string[],
    mineEndpointIds: readonly string[],
    mineCounts: readonly number[]
];
export declare const pickParams: ([now, limit, , ...rest]: ClaimParams) => (string | number | readonly number[] | readonly string[])[];
export declare function claimIn(tx: Queryable, st: ClaimStatements, params: ClaimParams): Promise<{
    rows: Claimed[];
    held: string[];
}>;
export declare function releaseSlots(q: Queryable, st: ClaimStatements, input: {
    workerId: string;
}): Promise<void>;

// --- dist/sql/claimed.d.ts
import type { StoredAuth } from "../auth/config.js";
import type { BrokerCredentials, Destination, DestinationKind } from "../destinations/config.js";
import type { SecretEntry } from "../types.js";
export interface Claimed {
    id: string;
    tenant: string;
    endpoint_id: string;
    attempts: number;
    event_id: string;
    type: string | null;
    api_version: string;
    created_at: Date;
    sequence: string;
    data: string;
    url: string | null;
    secrets: SecretEntry[] | null;
    format: "surety" | "standard";
    endpoint_status: string | null;
    retry_schedule: number[] | null;
    rate_limit: number | null;
    trace_context: unknown;
    endpoint_trace_context: boolean | null;
    endpoint_headers: Record<string, string> | null;
    kind: DestinationKind;
    destination: Destination;
    credentials: BrokerCredentials | null;
    endpoint_auth: StoredAuth | null;
}

// --- dist/sql/schema.d.ts
import { type Statement } from "@surety/db";
export declare const lockId: (name: string) => string;
export declare const notifyChannel: (schema: string) => string;
export declare function names(schema: string): {
    schema: string;
    qs: string;
    EP: string;
    EV: string;
    D: string;
    A: string;
    WS: string;
    T: string;
    AP: string;
    K: string;
    P: string;
    st: (name: string, text: string) => Statement;
};
export type Names = ReturnType<typeof names>;

// --- dist/sql/tokens.d.ts
import type { Queryable } from "@surety/db";
import type { Claimed } from "./claimed.js";
import type { Names } from "./schema.js";
export declare function tokenStatements({ EP, st }: Names): {
    takeTokens: import("@surety/db").Statement;
};
export type TokenStatements = ReturnType<typeof tokenStatements>;
export declare function grantRateLimited(tx: Queryable, st: TokenStatements, input: {
    rows: Claimed[];
    nowMs: number;
}): Promise<Set<string>>;
export declare function takeTokens(q: Queryable, st: TokenStatements, input: {
    tenants: string[];
    endpointIds: string[];
    wanted: number[];
    nowMs: number;
}): Promise<{
    tenant: string;
    id: string;
    granted: number;
    rate_limit: number;
}[]>;

// --- dist/delivery/classify.d.ts
import type { DeliveryErrorCode } from "../ssrf/errors.js";
export type NotSentCode = "endpoint_deleted" | "endpoint_disabled" | "event_deleted";
export type AttemptErrorCode = NotSentCode | "redirect_not_followed" | `http_${number}` | DeliveryErrorCode | "attempt_failed" | (string & {});
export type AttemptResult = {
    kind: "not_sent";
    code: NotSentCode;
} | {
    kind: "response";
    status: number;
    retryAfter: string | string[] | undefined;
} | {
    kind: "confirmed";
} | {
    kind: "error";
    code: AttemptErrorCode;
};
export type Classification = {
    kind: "delivered";
    status: number | null;
    errorCode: null;
    gone: false;
} | {
    kind: "failed";
    status: number | null;
    errorCode: AttemptErrorCode;
    gone: boolean;
} | {
    kind: "retry";
    status: number | null;
    errorCode: AttemptErrorCode;
    delayMs: number;
    nextAtMs: number;
} | {
    kind: "throttled";
    status: number;
    errorCode: AttemptErrorCode;
    delayMs: number;
    nextAtMs: number;
    retryAfterMs: number | null;
};
export interface ClassifyInput {
    result: AttemptResult;
    attempts: number;
    schedule: readonly number[];
    nowMs: number;
    random: () => number;
    maxRetryAfterSeconds: number;
    throttle?: boolean;
}
export declare const THROTTLED_DELAY_MS = 1000;
export declare function statusCode(status: number): AttemptErrorCode | null;
export declare function healthEffect(outcome: "delivered" | "retry" | "failed" | "throttled", code: AttemptErrorCode | null): "ignored" | "no_send" | "throttled" | "success" | "failure";
export declare function classify(input: ClassifyInput): Classification;

// --- dist/delivery/outcome-writer.d.ts
import type { Completion, OutcomeWriterOptions } from "./outcome-types.js";
export type { Completion, OutcomeWriterOptions, UnstorableHandling, UnstorableOutcome, } from "./outcome-types.js";
export declare const EXCERPT_LENGTH = 1024;
export declare class OutcomeWriter {
    #private;
    constructor(options: OutcomeWriterOptions);
    get size(): number;
    get blocked(): boolean;
    add(c: Completion): void;
    flush(): Promise<void>;
}

// --- dist/delivery/outcome-types.d.ts
import type { Queryable, Sql, Tx } from "@surety/db";
import type { completeStatements } from "../sql/complete.js";
export interface Completion {
    id: string;
    tenant: string;
    endpointId: string;
    outcome: "delivered" | "retry" | "failed" | "throttled" | "defer";
    nextAt: string | null;
    status: number | null;
    errorCode: string | null;
    errorMessage: string | null;
    excerpt: string | null;
    attempt: number;
    startedAt: string;
    durationMs: number;
    gone: boolean;
    pauseUntil: string | null;
    eventId: string;
    eventType: string | null;
}
export type UnstorableHandling = "replaced" | "text_dropped" | "attempt_dropped" | "lost";
export interface UnstorableOutcome {
    deliveryId: string;
    tenant: string;
    endpointId: string;
    attempt: number;
    handled: UnstorableHandling;
}
export interface OutcomeWriterOptions {
    sql: Queryable;
    st: ReturnType<typeof completeStatements>;
    workerId: string;
    now: () => number;
    batchSize: number;
    flushIntervalMs: number;
    stopping: () => boolean;
    failed?: {
        sql: Sql;
        counts: (c: Completion) => boolean;
        publish: (tx: Tx, failed: Completion[]) => Promise<void>;
    };
    written: (batch: Completion[], now: string) => Promise<void>;
    on: {
        error(error: Error): void;
        unstorable(outcome: UnstorableOutcome): void;
        blocked(info: {
            buffered: number;
            error: Error;
        }): void;
        resumed(info: {
            buffered: number;
            blockedMs: number;
        }): void;
        settled(): void;
    };
}

// --- dist/sql/complete.d.ts
import type { Queryable } from "@surety/db";
import type { Names } from "./schema.js";
export declare function completeStatements({ D, A, st }: Names): {
    complete: import("@surety/db").Statement;
};
export interface DeliveryOutcome {
    id: string;
    outcome: "delivered" | "retry" | "failed" | "throttled" | "defer";
    nextAt: string | null;
    status: number | null;
    errorCode: string | null;
}
export interface AttemptRow {
    deliveryId: string;
    tenant: string;
    attempt: number;
    startedAt: string;
    durationMs: number;
    status: number | null;
    excerpt: string | null;
    errorCode: string | null;
    errorMessage: string | null;
    endpointId: string;
}
export declare function completeDeliveries(q: Queryable, st: ReturnType<typeof completeStatements>, input: {
    nowIso: string;
    workerId: string;
    outcomes: readonly DeliveryOutcome[];
    attempts: readonly AttemptRow[];
}): Promise<{
    completed: number;
    attempts: number;
    failed: string[];
}>;

// --- dist/delivery/operational.d.ts
import { type Queryable, type Tx } from "@surety/db";
import type { WebhooksContext } from "../context.js";
import { type Webhooks } from "../webhooks.js";
export declare const OPERATIONAL_EVENT_TYPES: readonly [
    "endpoint.disabled",
    "endpoint.circuit_opened",
    "endpoint.circuit_closed",
    "endpoint.backlog_exceeded",
    "endpoint.backlog_cleared",
    "endpoint.secret_expiring",
    "delivery.failed"
];
export type OperationalEventType = (typeof OPERATIONAL_EVENT_TYPES)[number];
export declare const isOperationalEventType: (type: string) => type is OperationalEventType;
export interface OperationalEvent {
    tenant: string;
    type: OperationalEventType;
    endpointId: string;
    data: Record<string, unknown>;
}
export declare function publishOperational(ctx: WebhooksContext, tx: Tx | Queryable, event: OperationalEvent, onError: (error: Error) => void): Promise<void>;
export interface MonitorReport {
    ran: boolean;
    published: OperationalEvent[];
}
export interface MonitorOptions {
    backlogThreshold?: number;
    secretExpiryNoticeMs?: number;
}
export declare function runMonitor(webhooks: Webhooks, options?: MonitorOptions & {
    onError?: (error: Error) => void;
}): Promise<MonitorReport>;
export declare function monitor(ctx: WebhooksContext, options?: MonitorOptions & {
    onError?: (error: Error) => void;
}): Promise<MonitorReport>;

// --- dist/webhooks.d.ts
import { type Queryable, type Sql, type Tx } from "@surety/db";
import * as applications from "./applications/operations.js";
import { type WebhooksContext } from "./context.js";
import * as poll from "./poll/read.js";
import * as reads from "./reads/operations.js";
import type { Page } from "./reads/pages.js";
import { type MaintainOptions, type MaintenanceReport } from "./retention/maintain.js";
import { type Backlog } from "./sql/backlog.js";
import type { AllowList } from "./ssrf/index.js";
import type { Application, ApplicationRef, CreateApplicationInput, CreateEndpointInput, DeleteApplicationInput, DeleteEndpointInput, DisableEndpointInput, Endpoint, EndpointRef, PublishedEvent, PublishInput, RecoverEndpointInput, ReplayEventInput, RotateSecretInput, UpdateApplicationInput, UpdateEndpointInput, WebhooksOptions } from "./types.js";
export declare let contextOf: (webhooks: Webhooks) => WebhooksContext;
export declare class Webhooks {
    #private;
    readonly schema: string;
    readonly apiVersion: string;
    readonly allowHttp: boolean;
    readonly allowList: AllowList;
    readonly maxEndpointsPerTenant: number;
    constructor(options: WebhooksOptions);
    migrate(): Promise<void>;
    publish(tx: Tx | Queryable, input: PublishInput): Promise<PublishedEvent>;
    checkUrl(url: string): string;
    createEndpoint(q: Queryable, input: CreateEndpointInput): Promise<{
        endpoint: Endpoint;
        secret: string;
    }>;
    getEndpoint(q: Queryable, ref: EndpointRef): Promise<Endpoint | undefined>;
    readPoll(sql: Sql, input: poll.ReadPollInput): Promise<poll.PollPage>;
    ackPoll(tx: Tx, input: poll.AckPollInput): Promise<{
        cursor: string;
        acknowledged: number;
    }>;
    updateEndpoint(q: Queryable, input: UpdateEndpointInput): Promise<Endpoint | undefined>;
    deleteEndpoint(tx: Tx, input: DeleteEndpointInput): Promise<boolean>;
    enableEndpoint(q: Queryable, ref: EndpointRef): Promise<Endpoint>;
    disableEndpoint(tx: Tx, input: DisableEndpointInput): Promise<boolean>;
    rotateSecret(q: Queryable, input: RotateSecretInput): Promise<{
        endpoint: Endpoint;
        secret: string;
    }>;
    replayEvent(q: Queryable, input: ReplayEventInput): Promise<number>;
    recoverEndpoint(q: Queryable, input: RecoverEndpointInput): Promise<number>;
    createApplication(q: Queryable, input: CreateApplicationInput): Promise<Application>;
    getApplication(q: Queryable, ref: ApplicationRef): Promise<Application | undefined>;
    listApplications(q: Queryable, input: applications.ListApplicationsInput): Promise<Page<Application>>;
    updateApplication(q: Queryable, input: UpdateApplicationInput): Promise<Application | undefined>;
    deleteApplication(tx: Tx, input: DeleteApplicationInput): Promise<boolean>;
    listEndpoints(q: Queryable, input: reads.ListEndpointsInput): Promise<Page<Endpoint>>;
    getEndpointHealth(q: Queryable, ref: EndpointRef): Promise<reads.EndpointHealth | undefined>;
    listEvents(q: Queryable, input: reads.ListEventsInput): Promise<Page<reads.EventRecord>>;
    getEvent(q: Queryable, ref: reads.EventRef): Promise<reads.EventRecord | undefined>;
    listDeliveries(q: Queryable, input: reads.ListDeliveriesInput): Promise<Page<reads.DeliveryRecord>>;
    listAttempts(q: Queryable, input: reads.ListAttemptsInput): Promise<reads.AttemptRecord[] | undefined>;
    purge(options: {
        olderThanDays: number;
        batchSize?: number;
        maxBatches?: number;
    }): Promise<number>;
    maintain(options: MaintainOptions): Promise<MaintenanceReport>;
    backlog(): Promise<Backlog>;
    scheduleFor(endpointSchedule: number[] | null, engineSchedule?: readonly number[]): readonly number[];
}

// --- dist/poll/read.d.ts
import { type Sql, type Tx } from "@surety/db";
import type { WebhooksContext } from "../context.js";
export declare const MAX_POLL_LIMIT = 500;
export interface ReadPollInput {
    tenant: string;
    id: string;
    after?: string | undefined;
    limit?: number | undefined;
}
export interface PollItem {
    deliveryId: string;
    eventId: string;
    envelope: string;
}
export interface PollPage {
    data: PollItem[];
    cursor: string;
    hasMore: boolean;
}
export interface AckPollInput {
    tenant: string;
    id: string;
    cursor: string;
}
export declare function readPoll(ctx: WebhooksContext, sql: Sql, input: ReadPollInput): Promise<PollPage>;
export declare function ackPoll(ctx: WebhooksContext, tx: Tx, input: AckPollInput): Promise<{
    cursor: string;
    acknowledged: number;
}>;

// --- dist/reads/operations.d.ts
import type { Queryable } from "@surety/db";
import type { WebhooksContext } from "../context.js";
import type { Endpoint } from "../types.js";
import { type Page, type PageInput } from "./pages.js";
export interface EventRecord {
    id: string;
    type: string;
    apiVersion: string;
    createdAt: string;
    sequence: number;
    resource: string | null;
    data: unknown;
    applicationId: string | null;
}
export interface DeliveryRecord {
    id: string;
    eventId: string;
    eventType: string | null;
    endpointId: string;
    status: "pending" | "delivered" | "failed";
    attempts: number;
    nextAttemptAt: string | null;
    createdAt: string;
    completedAt: string | null;
    lastStatus: number | null;
    lastError: string | null;
}
export interface AttemptRecord {
    id: string;
    deliveryId: string;
    attempt: number;
    startedAt: string;
    durationMs: number;
    status: number | null;
    responseExcerpt: string | null;
    errorCode: string | null;
    errorMessage: string | null;
}
export interface EndpointHealth {
    lastSuccessAt: string | null;
    lastFailureAt: string | null;
    failingSince: string | null;
    attempts24h: number;
    successRate24h: number | null;
    pendingDeliveries: number;
}
export interface ListEndpointsInput extends PageInput {
    tenant: string;
    applicationId?: string;
}
export interface ListEventsInput extends PageInput {
    tenant: string;
    type?: string;
    since?: Date;
    resource?: string;
    applicationId?: string;
}
export interface EventRef {
    tenant: string;
    id: string;
}
export interface ListDeliveriesInput extends PageInput {
    tenant: string;
    endpointId?: string;
    eventId?: string;
    status?: string;
    applicationId?: string;
}
export interface ListAttemptsInput {
    tenant: string;
    deliveryId: string;
    applicationId?: string;
}
export declare function listEndpoints(ctx: WebhooksContext, q: Queryable, input: ListEndpointsInput): Promise<Page<Endpoint>>;
export declare function getEndpointHealth(ctx: WebhooksContext, q: Queryable, input: {
    tenant: string;
    id: string;
}): Promise<EndpointHealth | undefined>;
export declare function listEvents(ctx: WebhooksContext, q: Queryable, input: ListEventsInput): Promise<Page<EventRecord>>;
export declare function getEvent(ctx: WebhooksContext, q: Queryable, input: EventRef): Promise<EventRecord | undefined>;
export declare function listDeliveries(ctx: WebhooksContext, q: Queryable, input: ListDeliveriesInput): Promise<Page<DeliveryRecord>>;
export declare function listAttempts(ctx: WebhooksContext, q: Queryable, input: ListAttemptsInput): Promise<AttemptRecord[] | undefined>;

// --- dist/retention/maintain.d.ts
import type { WebhooksContext } from "../context.js";
export interface MaintainOptions {
    retentionDays: number;
    partitionDays?: number;
    ahead?: number;
    lockTimeoutMs?: number;
    lockWaitMs?: number;
    maxClockSkewMs?: number;
}
export interface WindowGap {
    from: string;
    to: string;
}
export interface HeldWindow {
    window: string;
    endsAt: string;
    reason: "pending" | "locked";
    pending: number;
}
export interface MaintenanceReport {
    created: string[];
    dropped: string[];
    held: HeldWindow[];
    createBlocked: boolean;
    lockTimeouts: number;
    readyUntil: string;
    gaps: WindowGap[];
    clockSkewMs: number;
}
export declare function maintain(ctx: WebhooksContext, options: MaintainOptions): Promise<MaintenanceReport>;

// --- dist/sql/backlog.d.ts
import type { Queryable } from "@surety/db";
import type { Names } from "./schema.js";
export interface Backlog {
    due: number;
    scheduled: number;
    inFlight: number;
    unacknowledged: number;
    oldestDueSeconds: number;
    circuits: {
        open: number;
        halfOpen: number;
    };
    throttled: {
        throttled: number;
        paused: number;
    };
}
export declare function readBacklog(q: Queryable, t: Pick<Names, "D" | "EP">): Promise<Backlog>;

// --- dist/delivery/worker.d.ts
import { EventEmitter } from "node:events";
import { type MonitorReport } from "./operational.js";
import type { WorkerEventMap } from "./worker-events.js";
import { type DeliveryWorkerOptions } from "./worker-options.js";
export declare class DeliveryWorker extends EventEmitter<WorkerEventMap> {
    #private;
    readonly id: string;
    constructor(options: DeliveryWorkerOptions);
    start(): Promise<void>;
    monitor(): Promise<MonitorReport>;
    stop(): Promise<void>;
    drain(): Promise<number>;
}
export declare const createDeliveryWorker: (options: DeliveryWorkerOptions) => DeliveryWorker;

// --- dist/delivery/worker-events.d.ts
import type { AttemptErrorCode } from "./classify.js";
import type { UnstorableOutcome } from "./outcome-types.js";
export type AttemptOutcome = "delivered" | "retry" | "failed" | "throttled";
export interface AttemptEvent {
    deliveryId: string;
    eventId: string;
    endpointId: string;
    tenant: string;
    attempt: number;
    outcome: AttemptOutcome;
    status: number | null;
    errorCode: AttemptErrorCode | null;
    durationMs: number;
    latencyMs: number;
}
export interface WorkerEventMap {
    "attempt:finished": [
        AttemptEvent
    ];
    "endpoint:disabled": [
        {
            tenant: string;
            endpointId: string;
            reason: string;
        }
    ];
    "circuit:opened": [
        {
            tenant: string;
            endpointId: string;
            held: number;
        }
    ];
    "circuit:probe_failed": [
        {
            tenant: string;
            endpointId: string;
            held: number;
        }
    ];
    "circuit:closed": [
        {
            tenant: string;
            endpointId: string;
            released: number;
        }
    ];
    "throttle:decreased": [
        {
            tenant: string;
            endpointId: string;
            signal: "throttled" | "latency";
            cap: number;
            rate: number | null;
        }
    ];
    "operational:published": [
        {
            tenant: string;
            type: string;
            endpointId: string;
        }
    ];
    "worker:error": [
        Error
    ];
    "outcome:unstorable": [
        UnstorableOutcome
    ];
    "outcomes:blocked": [
        {
            buffered: number;
            error: Error;
        }
    ];
    "outcomes:resumed": [
        {
            buffered: number;
            blockedMs: number;
        }
    ];
}

// --- dist/delivery/worker-options.d.ts
import type { ReceiverAuthOptions } from "../auth/index.js";
import type { BrokerPublisherOptions, PublishFn } from "../destinations/index.js";
import type { GuardOptions } from "../ssrf/index.js";
import type { Webhooks } from "../webhooks.js";
import type { PostFn } from "./attempt.js";
export interface DeliveryWorkerOptions {
    webhooks: Webhooks;
    id?: string;
    concurrency?: number;
    batchSize?: number;
    maxInFlightPerEndpoint?: number;
    maxInFlightPerTenant?: number;
    claimWindow?: number;
    pollIntervalMs?: number;
    leaseMs?: number;
    timeoutMs?: number;
    schedule?: readonly number[];
    disableAfterMs?: number;
    maxRetryAfterSeconds?: number;
    circuitThreshold?: number;
    circuitProbeMs?: number;
    circuitMaxProbeMs?: number;
    adaptiveThrottling?: boolean;
    throttleDecrease?: number;
    throttleMinRate?: number;
    throttleRecoverMs?: number;
    throttleLatencyFactor?: number;
    throttleLatencyFloorMs?: number;
    operationalEvents?: boolean;
    monitorIntervalMs?: number;
    backlogThreshold?: number;
    secretExpiryNoticeMs?: number;
    circuitNoticeQuietMs?: number;
    guard?: GuardOptions;
    post?: PostFn;
    auth?: ReceiverAuthOptions;
    brokers?: Pick<BrokerPublisherOptions, "maxLifetimeMs" | "idleMs" | "maxConnections">;
    publish?: PublishFn;
    listen?: boolean;
    random?: () => number;
    flushIntervalMs?: number;
}
export declare function resolveWorkerOptions(options: DeliveryWorkerOptions): {
    concurrency: number;
    batchSize: number;
    maxInFlightPerEndpoint: number;
    maxInFlightPerTenant: number;
    claimWindow: number;
    pollIntervalMs: number;
    leaseMs: number;
    timeoutMs: number;
    schedule: readonly number[];
    disableAfterMs: number;
    maxRetryAfterSeconds: number;
    circuitThreshold: number;
    circuitProbeMs: number;
    circuitMaxProbeMs: number;
    adaptiveThrottling: boolean;
    throttleDecrease: number;
    throttleMinRate: number;
    throttleRecoverMs: number;
    throttleLatencyFactor: number;
    throttleLatencyFloorMs: number;
    operationalEvents: boolean;
    monitorIntervalMs: number;
    backlogThreshold: number;
    secretExpiryNoticeMs: number;
    circuitNoticeQuietMs: number;
    listen: boolean;
    random: () => number;
    flushIntervalMs: number;
};
export type ResolvedWorkerOptions = ReturnType<typeof resolveWorkerOptions>;

// --- dist/destinations/peers.d.ts
import { BrokerError } from "./errors.js";
export declare const PEERS: {
    readonly amqp: "amqplib";
    readonly nats: "nats";
    readonly mqtt: "mqtt";
};
export declare class MissingBrokerClientError extends BrokerError {
    readonly packageName: string;
    constructor(packageName: string, kind: string, options?: {
        cause?: unknown;
    });
}
export declare function loadPeer<T>(kind: keyof typeof PEERS, importer?: () => Promise<unknown>): Promise<T>;

// --- dist/envelope.d.ts
export type { Envelope } from "@surety/core";
export declare function envelopeJson(e: {
    id: string;
    type: string;
    apiVersion: string;
    createdAt: Date | string;
    sequence: string | number;
    data: string;
}): string;

// --- dist/filter/depth.d.ts
export declare const FILTER_MAX_DATA_DEPTH = 1000;
export declare function nestsDeeperThan(value: unknown, max: number): boolean;

// --- dist/filter/index.d.ts
export { evaluateFilter, type FilterDocument } from "./evaluate.js";
export { compileFilter } from "./jsonpath.js";
export { type Comparison, FILTER_LIMITS, FILTER_ROOTS, type FilterLiteral, type FilterNode, parseFilter, } from "./parse.js";

// --- dist/filter/evaluate.d.ts
import type { FilterNode } from "./parse.js";
export interface FilterDocument {
    type: string;
    resource: string | null;
    data: unknown;
}
export declare function evaluateFilter(node: FilterNode, doc: FilterDocument): boolean;

// --- dist/filter/parse.d.ts
export type FilterLiteral = string | number | boolean | null;
export declare const FILTER_ROOTS: readonly string[];
export declare const FILTER_LIMITS: Readonly<{
    depth: 6;
    width: 50;
    nodes: 200;
    stringLength: 256;
    pathSegments: 8;
    segmentLength: 64;
    bytes: 16384;
}>;
export type Comparison = "eq" | "ne" | "gt" | "gte" | "lt" | "lte";
export type FilterNode = {
    op: "and" | "or";
    of: FilterNode[];
} | {
    op: "not";
    of: FilterNode;
} | {
    op: "cmp";
    path: string[];
    cmp: Comparison;
    value: FilterLiteral;
} | {
    op: "in";
    path: string[];
    values: FilterLiteral[];
    negate: boolean;
} | {
    op: "exists";
    path: string[];
    exists: boolean;
};
export declare function parseFilter(filter: unknown): FilterNode;

// --- dist/filter/jsonpath.d.ts
import type { FilterNode } from "./parse.js";
export declare function compileFilter(node: FilterNode): string;

// --- dist/headers.d.ts
export declare const MAX_HEADERS = 20;
export declare const MAX_HEADER_NAME = 100;
export declare const MAX_HEADER_VALUE = 1000;
export declare const MAX_HEADERS_SIZE = 4096;
export declare const RESERVED_HEADERS: ReadonlySet<string>;
export declare const RESERVED_HEADER_PREFIXES: readonly string[];
export declare function checkHeaders(headers: unknown): asserts headers is Record<string, string>;

// --- dist/migrations.d.ts
export declare const migrations: import("@surety/db").MigrationSet;

// --- dist/poll/index.d.ts
export { MAX_CURSOR_LENGTH } from "./cursor.js";
export type { AckPollInput, PollItem, PollPage, ReadPollInput } from "./read.js";
export { MAX_POLL_LIMIT } from "./read.js";
export { PollWaits, type PollWaitsOptions } from "./waits.js";

// --- dist/poll/cursor.d.ts
export declare const MAX_CURSOR_LENGTH = 200;
export declare function encodeCursor(key: Uint8Array, tenant: string, endpointId: string, position: string): string;
export declare function parseCursor(token: string): {
    endpointId: string;
    position: string;
    payload: string;
    mac: string;
};
export declare function verifyCursor(key: Uint8Array, tenant: string, parsed: {
    payload: string;
    mac: string;
}): void;

// --- dist/poll/waits.d.ts
import { type Webhooks } from "../webhooks.js";
export interface PollWaitsOptions {
    maxPerTenant?: number;
    checkMs?: number;
    listen?: boolean;
}
export declare class PollWaits {
    #private;
    readonly maxPerTenant: number;
    constructor(webhooks: Webhooks, options?: PollWaitsOptions);
    get closing(): boolean;
    held(tenant?: string): number;
    acquire(tenant: string): () => void;
    wait(ms: number, signal?: AbortSignal): Promise<void>;
    close(): Promise<void>;
}

// --- dist/schedule.d.ts
export declare const DEFAULT_SCHEDULE: readonly number[];
export declare function parseSchedule(text: string): number[];
export interface NextAttempt {
    delayMs: number | undefined;
}
export declare function nextDelay(schedule: readonly number[], attempts: number, options?: {
    random?: () => number;
    jitter?: number;
    retryAfterSeconds?: number;
    maxRetryAfterSeconds?: number;
}): number | undefined;
export declare function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined;
export declare const scheduleFor: (endpointSchedule: number[] | null, engineSchedule?: readonly number[]) => readonly number[];

// ===== ./ssrf → ./dist/ssrf.d.ts
// --- dist/ssrf.d.ts
export * from "./ssrf/index.js";

// (dist/ssrf/index.d.ts: above)
// (dist/ssrf/allow-list.d.ts: above)
// (dist/ssrf/classify.d.ts: above)
// (dist/ssrf/ip.d.ts: above)
// (dist/ssrf/dispatcher.d.ts: above)
// (dist/ssrf/resolve.d.ts: above)
// (dist/ssrf/errors.d.ts: above)
// (dist/ssrf/post.d.ts: above)
// (dist/ssrf/validate-url.d.ts: above)
// ===== ./ids → ./dist/ids.d.ts
// --- dist/ids.d.ts
export declare function newId(prefix: string, now?: number): string;
export declare function idTimePrefix(prefix: string, now: number): string;

// ===== ./testing → ./dist/testing.d.ts
// --- dist/testing.d.ts
import { type ChildProcess } from "node:child_process";
import { type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { Queryable } from "@surety/db";
import type { WebhooksContext } from "./context.js";
import { type ClaimParams } from "./sql/claim.js";
import { type Webhooks } from "./webhooks.js";
export interface Received {
    headers: IncomingHttpHeaders;
    body: string;
    at: number;
    path: string;
}
export type Behaviour = (req: Received, n: number, res: ServerResponse) => void | Promise<void>;
export declare function startReceiver(behaviour?: Behaviour): Promise<{
    url: string;
    port: number;
    received: Received[];
    behaviour: Behaviour;
    waitFor(count: number, timeoutMs?: number): Promise<void>;
    close(): Promise<void>;
}>;
export declare function spawnWorkerProcess(options: {
    databaseUrl: string;
    schema: string;
    env?: Record<string, string>;
}): Promise<ChildProcess>;
export declare const stopProcess: (child: ChildProcess, signal?: NodeJS.Signals) => Promise<void>;
export declare const webhooksInternals: (webhooks: Webhooks) => WebhooksContext;
export { idTimePrefix } from "./ids.js";
export { pickParams } from "./sql/claim.js";
export { notifyChannel } from "./sql/schema.js";
export declare const claimOnce: (tx: Queryable, webhooks: Webhooks, params: ClaimParams) => Promise<{
    rows: import("./sql/claimed.js").Claimed[];
    held: string[];
}>;

// (dist/context.d.ts: above)
// (dist/sql/index.d.ts: above)
// (dist/ssrf/index.d.ts: above)
// (dist/ssrf/allow-list.d.ts: above)
// (dist/ssrf/classify.d.ts: above)
// (dist/ssrf/ip.d.ts: above)
// (dist/ssrf/dispatcher.d.ts: above)
// (dist/ssrf/resolve.d.ts: above)
// (dist/ssrf/errors.d.ts: above)
// (dist/ssrf/post.d.ts: above)
// (dist/ssrf/validate-url.d.ts: above)
// (dist/types.d.ts: above)
// (dist/applications/types.d.ts: above)
// (dist/endpoints/types.d.ts: above)
// (dist/auth/config.d.ts: above)
// (dist/destinations/config.d.ts: above)
// (dist/sql/claim.d.ts: above)
// (dist/sql/claimed.d.ts: above)
// (dist/sql/schema.d.ts: above)
// (dist/sql/tokens.d.ts: above)
// (dist/webhooks.d.ts: above)
// (dist/applications/operations.d.ts: above)
// (dist/reads/pages.d.ts: above)
// (dist/poll/read.d.ts: above)
// (dist/reads/operations.d.ts: above)
// (dist/retention/maintain.d.ts: above)
// (dist/sql/backlog.d.ts: above)
// (dist/ids.d.ts: above)
