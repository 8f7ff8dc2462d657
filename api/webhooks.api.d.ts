// The public API of @surety/webhooks: what each entry point exports (scripts/api-report.mjs; do not edit by hand).

// ===== @surety/webhooks
export declare const ALLOWED_CIDRS_ENV = "SURETY_WEBHOOK_ALLOWED_CIDRS";
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
export declare const AUTH_TOKEN_FAILED = "auth_token_failed";
export declare const AUTH_TYPES: readonly [
    "basic",
    "oauth2",
    "mtls"
];
export interface AckPollInput {
    tenant: string;
    id: string;
    cursor: string;
}
export type AllowList = readonly Cidr[];
export interface Application {
    id: string;
    uid: string | null;
    name: string;
    metadata: Record<string, string>;
    version: number;
    createdAt: string;
    updatedAt: string;
}
export declare class ApplicationNotFoundError extends WebhookError {
    readonly field?: "applicationId" | "application" | undefined;
    readonly code: 'SURETY_APPLICATION_NOT_FOUND';
    constructor(field?: "applicationId" | "application" | undefined);
}
export type ApplicationPatch = Partial<Pick<CreateApplicationInput, 'uid' | 'name' | 'metadata'>>;
export interface ApplicationRef {
    tenant: string;
    id: string;
}
export declare class ApplicationUidTakenError extends WebhookError {
    readonly uid: string;
    readonly code: 'SURETY_APPLICATION_UID_TAKEN';
    constructor(uid: string);
}
export interface AttemptAuth {
    endpoint: string;
    config: StoredAuth;
}
export type AttemptErrorCode = NotSentCode | 'redirect_not_followed' | `http_${number}` | DeliveryErrorCode | 'attempt_failed' | (string & {});
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
export type AttemptOutcome = 'delivered' | 'retry' | 'failed' | 'throttled';
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
export declare class AuthTokenError extends Error {
    readonly code = "auth_token_failed";
    constructor(message: string, options?: {
        cause?: unknown;
    });
}
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
export interface BasicAuthInput {
    type: 'basic';
    username: string;
    password: string;
}
export interface BrokerCredentials {
    username: string;
    password: string;
}
export interface BrokerEndpointRow {
    tenant: string;
    endpoint_id: string;
    kind: DestinationKind;
    url: string | null;
    destination: Destination;
    credentials: BrokerCredentials | null;
}
export declare class BrokerError extends Error {
    readonly code: BrokerErrorCode;
    constructor(code: BrokerErrorCode, message: string, options?: {
        cause?: unknown;
    });
}
export type BrokerErrorCode = 'missing_peer' | 'auth_failed' | 'not_authorized' | 'unroutable' | 'broker_nack' | 'connect_timeout' | 'timeout' | 'tls_error' | 'connection_error';
export interface BrokerPublisherOptions extends PoolOptions {
    allowList: AllowList;
    resolver?: Resolver;
    connectTimeoutMs?: number;
    tls?: BrokerTlsOptions;
}
export interface CircuitState {
    state: 'closed' | 'open' | 'half_open';
    consecutiveFailures: number;
    openedAt: string | null;
    nextProbeAt: string | null;
}
export declare class ClockSkewError extends WebhookError {
    readonly skewMs: number;
    readonly maxClockSkewMs: number;
    readonly code: 'SURETY_CLOCK_SKEW';
    constructor(skewMs: number, maxClockSkewMs: number);
}
export type Comparison = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte';
export interface CreateApplicationInput {
    tenant: string;
    uid?: string | null;
    name: string;
    metadata?: Record<string, string>;
}
export interface CreateEndpointInput {
    tenant: string;
    url?: string;
    kind?: DestinationKind;
    destination?: unknown;
    credentials?: BrokerCredentials | null;
    eventTypes: string[];
    description?: string;
    format?: 'surety' | 'standard';
    retrySchedule?: number[] | null;
    rateLimit?: number | null;
    ordered?: boolean;
    traceContext?: boolean;
    applicationId?: string;
    headers?: Record<string, string>;
    filter?: EndpointFilter | null;
    auth?: EndpointAuthInput | null;
}
export declare const DEFAULT_SCHEDULE: readonly number[];
export declare const DESTINATION_KINDS: readonly DestinationKind[];
export interface DeleteApplicationInput extends ApplicationRef {
    ifVersion?: number;
}
export interface DeleteEndpointInput extends EndpointRef {
    ifVersion?: number;
}
export interface DeliveryRecord {
    id: string;
    eventId: string;
    eventType: string | null;
    endpointId: string;
    status: 'pending' | 'delivered' | 'failed';
    attempts: number;
    nextAttemptAt: string | null;
    createdAt: string;
    completedAt: string | null;
    lastStatus: number | null;
    lastError: string | null;
}
export declare class DeliveryWorker extends EventEmitter<WorkerEventMap> {
    #private;
    readonly id: string;
    constructor(options: DeliveryWorkerOptions);
    start(): Promise<void>;
    monitor(): Promise<MonitorReport>;
    stop(): Promise<void>;
    drain(): Promise<number>;
}
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
    brokers?: Pick<BrokerPublisherOptions, 'maxLifetimeMs' | 'idleMs' | 'maxConnections'>;
    publish?: PublishFn;
    listen?: boolean;
    random?: () => number;
    flushIntervalMs?: number;
}
export type Destination = Record<string, never> | {
    exchange: string;
    routingKey: string;
} | {
    subject: string;
} | {
    topic: string;
    qos: 1;
};
export type DestinationKind = 'webhook' | 'amqp' | 'nats' | 'mqtt' | 'poll';
export interface DisableEndpointInput extends EndpointRef {
    reason: string;
}
export interface Endpoint {
    id: string;
    applicationId: string | null;
    url: string;
    description: string;
    eventTypes: string[];
    format: 'surety' | 'standard';
    status: 'enabled' | 'disabled';
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
export type EndpointAuth = {
    type: 'basic';
    username: string;
} | {
    type: 'oauth2';
    tokenUrl: string;
    clientId: string;
    scope: string | null;
    audience: string | null;
    clientAuth: 'basic' | 'body';
} | {
    type: 'mtls';
    certificateFingerprint: string;
    notAfter: string;
    subject: string;
};
export type EndpointAuthInput = BasicAuthInput | OAuth2AuthInput | MtlsAuthInput;
export type EndpointFilter = {
    [key: string]: unknown;
};
export interface EndpointHealth {
    lastSuccessAt: string | null;
    lastFailureAt: string | null;
    failingSince: string | null;
    attempts24h: number;
    successRate24h: number | null;
    pendingDeliveries: number;
}
export declare class EndpointLimitError extends WebhookError {
    readonly limit: number;
    readonly code: 'SURETY_ENDPOINT_LIMIT';
    constructor(limit: number);
}
export declare class EndpointNotFoundError extends WebhookError {
    readonly code: 'SURETY_ENDPOINT_NOT_FOUND';
    constructor();
}
export type EndpointPatch = Partial<Pick<CreateEndpointInput, 'url' | 'eventTypes' | 'description' | 'format' | 'retrySchedule' | 'rateLimit' | 'ordered' | 'traceContext' | 'headers' | 'filter' | 'destination' | 'credentials' | 'auth'>>;
export interface EndpointRef {
    tenant: string;
    id: string;
}
export { Envelope } from "@surety/core";
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
export interface EventRef {
    tenant: string;
    id: string;
}
export declare const FILTER_LIMITS: Readonly<{
    depth: 6;
    width: 50;
    nodes: 200;
    stringLength: 256;
    pathSegments: 8;
    segmentLength: 64;
    bytes: 16384;
}>;
export declare const FILTER_MAX_DATA_DEPTH = 1000;
export declare const FILTER_ROOTS: readonly string[];
export interface FilterDocument {
    type: string;
    resource: string | null;
    data: unknown;
}
export type FilterLiteral = string | number | boolean | null;
export type FilterNode = {
    op: 'and' | 'or';
    of: FilterNode[];
} | {
    op: 'not';
    of: FilterNode;
} | {
    op: 'cmp';
    path: string[];
    cmp: Comparison;
    value: FilterLiteral;
} | {
    op: 'in';
    path: string[];
    values: FilterLiteral[];
    negate: boolean;
} | {
    op: 'exists';
    path: string[];
    exists: boolean;
};
export interface HeldWindow {
    window: string;
    endsAt: string;
    reason: 'pending' | 'locked';
    pending: number;
}
export declare class InvalidAuthError extends WebhookError {
    readonly errors: {
        path: string;
        message: string;
    }[];
    readonly code: 'SURETY_INVALID_AUTH';
    constructor(message: string, errors?: {
        path: string;
        message: string;
    }[]);
}
export declare class InvalidEventError extends WebhookError {
    readonly errors: {
        path: string;
        message: string;
    }[];
    readonly code: 'SURETY_INVALID_EVENT';
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
    readonly code: 'SURETY_INVALID_FILTER';
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
    readonly code: 'SURETY_INVALID_HEADERS';
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
    readonly code: 'SURETY_INVALID_INPUT';
    constructor(message: string, errors?: {
        path: string;
        message: string;
    }[]);
}
export interface ListApplicationsInput extends PageInput {
    tenant: string;
}
export interface ListAttemptsInput {
    tenant: string;
    deliveryId: string;
    applicationId?: string;
}
export interface ListDeliveriesInput extends PageInput {
    tenant: string;
    endpointId?: string;
    eventId?: string;
    status?: string;
    applicationId?: string;
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
export declare const MAX_CURSOR_LENGTH = 200;
export declare const MAX_HEADERS = 20;
export declare const MAX_HEADERS_SIZE = 4096;
export declare const MAX_HEADER_NAME = 100;
export declare const MAX_HEADER_VALUE = 1000;
export declare const MAX_POLL_LIMIT = 500;
export interface MaintainOptions {
    retentionDays: number;
    partitionDays?: number;
    ahead?: number;
    lockTimeoutMs?: number;
    lockWaitMs?: number;
    maxClockSkewMs?: number;
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
export declare class MissingBrokerClientError extends BrokerError {
    readonly packageName: string;
    constructor(packageName: string, kind: string, options?: {
        cause?: unknown;
    });
}
export interface MonitorOptions {
    backlogThreshold?: number;
    secretExpiryNoticeMs?: number;
}
export interface MonitorReport {
    ran: boolean;
    published: OperationalEvent[];
}
export interface MtlsAuthInput {
    type: 'mtls';
    certificate: string;
    privateKey: string;
    ca?: string | null;
}
export declare class NotPollEndpointError extends WebhookError {
    readonly kind: string;
    readonly code: 'SURETY_NOT_POLL_ENDPOINT';
    constructor(kind: string);
}
export type NotSentCode = 'endpoint_deleted' | 'endpoint_disabled' | 'event_deleted';
export interface OAuth2AuthInput {
    type: 'oauth2';
    tokenUrl: string;
    clientId: string;
    clientSecret: string;
    scope?: string | null;
    audience?: string | null;
    clientAuth?: 'basic' | 'body';
}
export declare const OPERATIONAL_EVENT_TYPES: readonly [
    "endpoint.disabled",
    "endpoint.circuit_opened",
    "endpoint.circuit_closed",
    "endpoint.backlog_exceeded",
    "endpoint.backlog_cleared",
    "endpoint.secret_expiring",
    "delivery.failed"
];
export interface OperationalEvent {
    tenant: string;
    type: OperationalEventType;
    endpointId: string;
    data: Record<string, unknown>;
}
export type OperationalEventType = (typeof OPERATIONAL_EVENT_TYPES)[number];
export interface Page<T> {
    data: T[];
    hasMore: boolean;
    nextCursor: string | null;
}
export interface PageInput {
    limit?: number;
    cursor?: string;
}
export interface PollItem {
    deliveryId: string;
    eventId: string;
    envelope: string;
}
export declare class PollLimitError extends WebhookError {
    readonly limit: number;
    readonly code: 'SURETY_POLL_LIMIT';
    constructor(limit: number);
}
export interface PollPage {
    data: PollItem[];
    cursor: string;
    hasMore: boolean;
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
export interface PollWaitsOptions {
    maxPerTenant?: number;
    checkMs?: number;
    listen?: boolean;
}
export type PostFn = (url: string, request: {
    headers: Record<string, string>;
    body: string;
    timeoutMs: number;
    auth?: AttemptAuth;
}) => Promise<Pick<GuardedResponse, 'status' | 'headers' | 'bodyExcerpt'>>;
export type PublishFn = (row: BrokerEndpointRow, message: SignedMessage, timeoutMs: number) => Promise<void>;
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
export declare const RESERVED_HEADERS: ReadonlySet<string>;
export declare const RESERVED_HEADER_PREFIXES: readonly string[];
export interface ReadPollInput {
    tenant: string;
    id: string;
    after?: string | undefined;
    limit?: number | undefined;
}
export type ReceiverAuthOptions = Omit<TokenCacheOptions, 'guard'> & {
    maxMtlsEndpoints?: number;
};
export interface RecoverEndpointInput {
    tenant: string;
    endpointId: string;
    since: Date;
}
export interface RedactedCredentials {
    username: string;
    password: '[redacted]';
}
export interface ReplayEventInput {
    tenant: string;
    eventId: string;
    endpointId?: string;
}
export interface RotateSecretInput extends EndpointRef {
    overlapMs?: number;
}
export interface SecretEntry {
    secret: string;
    expiresAt: string | null;
}
export interface SignedMessage {
    id: string;
    type: string;
    body: string;
    headers: Record<string, string>;
}
export interface ThrottleState {
    state: 'none' | 'throttled' | 'paused';
    inFlightCap: number | null;
    rate: number | null;
    since: string | null;
    until: string | null;
    pausedUntil: string | null;
    decreases: number;
}
export type UnstorableHandling = 'replaced' | 'text_dropped' | 'attempt_dropped' | 'lost';
export interface UnstorableOutcome {
    deliveryId: string;
    tenant: string;
    endpointId: string;
    attempt: number;
    handled: UnstorableHandling;
}
export interface UpdateApplicationInput extends ApplicationRef {
    ifVersion: number;
    patch: ApplicationPatch;
}
export interface UpdateEndpointInput extends EndpointRef {
    ifVersion: number;
    patch: EndpointPatch;
}
export declare class WebhookError extends Error {
    readonly code: WebhookErrorCode;
    constructor(code: WebhookErrorCode, message: string, options?: {
        cause?: unknown;
    });
}
export type WebhookErrorCode = 'SURETY_INVALID_URL' | 'SURETY_INVALID_EVENT' | 'SURETY_INVALID_INPUT' | 'SURETY_INVALID_HEADERS' | 'SURETY_INVALID_FILTER' | 'SURETY_INVALID_AUTH' | 'SURETY_INVALID_CURSOR' | 'SURETY_ENDPOINT_NOT_FOUND' | 'SURETY_ENDPOINT_LIMIT' | 'SURETY_APPLICATION_NOT_FOUND' | 'SURETY_APPLICATION_UID_TAKEN' | 'SURETY_OUTCOME_UNSTORABLE' | 'SURETY_CLOCK_SKEW' | 'SURETY_NOT_POLL_ENDPOINT' | 'SURETY_POLL_LIMIT';
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
export interface WindowGap {
    from: string;
    to: string;
}
export interface WorkerEventMap {
    'attempt:finished': [
        AttemptEvent
    ];
    'endpoint:disabled': [
        {
            tenant: string;
            endpointId: string;
            reason: string;
        }
    ];
    'circuit:opened': [
        {
            tenant: string;
            endpointId: string;
            held: number;
        }
    ];
    'circuit:probe_failed': [
        {
            tenant: string;
            endpointId: string;
            held: number;
        }
    ];
    'circuit:closed': [
        {
            tenant: string;
            endpointId: string;
            released: number;
        }
    ];
    'throttle:decreased': [
        {
            tenant: string;
            endpointId: string;
            signal: 'throttled' | 'latency';
            cap: number;
            rate: number | null;
        }
    ];
    'operational:published': [
        {
            tenant: string;
            type: string;
            endpointId: string;
        }
    ];
    'worker:error': [
        Error
    ];
    'outcome:unstorable': [
        UnstorableOutcome
    ];
    'outcomes:blocked': [
        {
            buffered: number;
            error: Error;
        }
    ];
    'outcomes:resumed': [
        {
            buffered: number;
            blockedMs: number;
        }
    ];
}
export declare function allowListFromEnv(env?: NodeJS.ProcessEnv): AllowList;
export declare const createDeliveryWorker: (options: DeliveryWorkerOptions) => DeliveryWorker;
export declare const createWebhooks: (options: WebhooksOptions) => Webhooks;
export declare function envelopeJson(e: {
    id: string;
    type: string;
    apiVersion: string;
    createdAt: Date | string;
    sequence: string | number;
    data: string;
}): string;
export declare function evaluateFilter(node: FilterNode, doc: FilterDocument): boolean;
export declare const isApplicationNotFoundError: (value: unknown) => value is ApplicationNotFoundError;
export declare const isApplicationUidTakenError: (value: unknown) => value is ApplicationUidTakenError;
export declare const isClockSkewError: (value: unknown) => value is ClockSkewError;
export declare const isEndpointLimitError: (value: unknown) => value is EndpointLimitError;
export declare const isEndpointNotFoundError: (value: unknown) => value is EndpointNotFoundError;
export declare const isInvalidAuthError: (value: unknown) => value is InvalidAuthError;
export declare const isInvalidEventError: (value: unknown) => value is InvalidEventError;
export declare const isInvalidFilterError: (value: unknown) => value is InvalidFilterError;
export declare const isInvalidHeadersError: (value: unknown) => value is InvalidHeadersError;
export declare const isInvalidInputError: (value: unknown) => value is InvalidInputError;
export declare const isNotPollEndpointError: (value: unknown) => value is NotPollEndpointError;
export declare const isOperationalEventType: (type: string) => type is OperationalEventType;
export declare const isPollLimitError: (value: unknown) => value is PollLimitError;
export declare const isWebhookError: (value: unknown) => value is WebhookError;
export declare const migrations: import("@surety/db").MigrationSet;
export declare function nextDelay(schedule: readonly number[], attempts: number, options?: {
    random?: () => number;
    jitter?: number;
    retryAfterSeconds?: number;
    maxRetryAfterSeconds?: number;
}): number | undefined;
export declare function parseAllowList(value: string | readonly string[] | undefined, source?: string): AllowList;
export declare function parseFilter(filter: unknown): FilterNode;
export declare function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined;
export declare function parseSchedule(text: string): number[];
export declare function runMonitor(webhooks: Webhooks, options?: MonitorOptions & {
    onError?: (error: Error) => void;
}): Promise<MonitorReport>;

// ===== @surety/webhooks/ssrf
export { ALLOWED_CIDRS_ENV }; // as in @surety/webhooks
export type AddressCategory = 'global' | 'unspecified' | 'this-network' | 'loopback' | 'private' | 'cgnat' | 'link-local' | 'cloud-metadata' | 'ietf-protocol' | 'documentation' | 'benchmarking' | '6to4-relay' | 'multicast' | 'broadcast' | 'reserved' | 'ipv4-compatible' | 'nat64-local' | 'discard' | 'teredo' | '6to4' | 'unique-local' | 'site-local' | 'invalid';
export interface AddressClassification {
    readonly address: string;
    readonly family: 4 | 6 | undefined;
    readonly category: AddressCategory;
    readonly range?: string;
    readonly blocked: boolean;
    readonly embedded?: AddressClassification;
}
export { AllowList }; // as in @surety/webhooks
export declare class AllowListError extends Error {
    readonly code = "invalid_allow_list";
    constructor(message: string);
}
export interface BlockedAddress {
    readonly address: string;
    readonly category: string;
}
export interface Cidr {
    readonly family: 4 | 6;
    readonly bytes: Uint8Array;
    readonly prefix: number;
    readonly text: string;
}
export type Connector = buildConnector.connector;
export declare class DeliveryError extends Error {
    readonly code: DeliveryErrorCode;
    constructor(code: DeliveryErrorCode, message: string, options?: {
        cause?: unknown;
    });
}
export type DeliveryErrorCode = 'invalid_url' | 'ssrf_blocked' | 'dns_failed' | 'connect_timeout' | 'timeout' | 'tls_error' | 'connection_error';
export declare class DnsError extends DeliveryError {
    readonly code: 'dns_failed';
    readonly hostname: string;
    constructor(hostname: string, message: string, options?: {
        cause?: unknown;
    });
}
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
export interface GuardedDispatcher {
    readonly dispatcher: Dispatcher;
    readonly options: ResolvedGuardOptions;
    close(): Promise<void>;
}
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
export interface ResolveTargetOptions {
    resolver?: Resolver;
    allowList?: AllowList;
    timeoutMs?: number;
}
export interface ResolvedAddress {
    readonly address: string;
    readonly family: 4 | 6;
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
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;
export declare class SsrfBlockedError extends DeliveryError {
    readonly code: 'ssrf_blocked';
    readonly hostname: string;
    readonly blocked: readonly BlockedAddress[];
    readonly addresses: readonly string[];
    constructor(hostname: string, blocked: readonly BlockedAddress[], addresses?: readonly string[]);
}
export interface TargetCheck {
    readonly hostname: string;
    readonly addresses: readonly string[];
    readonly address?: string;
    readonly family?: 4 | 6;
    readonly blocked: readonly BlockedAddress[];
}
export type UrlRejectionReason = 'invalid_url' | 'url_too_long' | 'unsupported_protocol' | 'https_required' | 'credentials_in_url' | 'fragment_in_url' | 'missing_host' | 'invalid_port' | 'blocked_address';
export type UrlValidation = {
    readonly kind: 'valid';
    readonly ok: true;
    readonly url: URL;
    readonly address?: AddressClassification;
} | {
    readonly kind: 'invalid';
    readonly ok: false;
    readonly reason: UrlRejectionReason;
    readonly message: string;
    readonly address?: AddressClassification;
};
export interface UrlValidationOptions {
    allowHttp?: boolean;
    maxLength?: number;
    allowList?: AllowList;
}
export declare class WebhookUrlError extends DeliveryError {
    readonly code: 'invalid_url';
    readonly reason: string;
    constructor(reason: string, message: string);
}
export { allowListFromEnv }; // as in @surety/webhooks
export declare function classifyAddress(ip: string): AddressClassification;
export declare function createGuardedDispatcher(options?: GuardOptions): GuardedDispatcher;
export declare function guardConnector(base: Connector, options: Pick<ResolvedGuardOptions, 'allowList' | 'resolver' | 'connectTimeoutMs'> & {
    onCheck?: ((check: TargetCheck) => void) | undefined;
}): Connector;
export declare function guardedPost(guard: GuardedDispatcher, url: string | URL, options?: GuardedPostOptions): Promise<GuardedResponse>;
export declare function isAllowListed(address: string, allowList: AllowList): boolean;
export declare function isBlockedAddress(address: string, allowList?: AllowList): boolean;
export declare function isDeliveryError(error: unknown): error is DeliveryError;
export declare function isSsrfBlockedError(error: unknown): error is SsrfBlockedError;
export { parseAllowList }; // as in @surety/webhooks
export declare function resolveTarget(hostname: string, options?: ResolveTargetOptions): Promise<TargetCheck & {
    address: string;
    family: 4 | 6;
}>;
export declare const systemResolver: Resolver;
export declare function toDeliveryError(error: unknown, signal?: AbortSignal): DeliveryError;
export declare function validateWebhookUrl(input: string | URL, options?: UrlValidationOptions): UrlValidation;

// ===== @surety/webhooks/ids
export declare function idTimePrefix(prefix: string, now: number): string;
export declare function newId(prefix: string, now?: number): string;

// ===== @surety/webhooks/testing
export type Behaviour = (req: Received, n: number, res: ServerResponse) => void | Promise<void>;
export interface Received {
    headers: IncomingHttpHeaders;
    body: string;
    at: number;
    path: string;
}
export declare const claimOnce: (tx: Queryable, webhooks: Webhooks, params: ClaimParams) => Promise<{
    rows: import("./sql/claimed.js").Claimed[];
    held: string[];
}>;
export declare const completeOnce: (q: Queryable, webhooks: Webhooks, input: {
    nowIso: string;
    workerId: string;
    outcomes: readonly DeliveryOutcome[];
    attempts: readonly (Omit<AttemptRow, "id"> & {
        id?: string;
    })[];
}) => Promise<{
    completed: number;
    attempts: number;
    failed: string[];
}>;
export { idTimePrefix }; // as in @surety/webhooks/ids
export declare const notifyChannel: (schema: string) => string;
export declare const pickParams: ([now, limit, , ...rest]: ClaimParams) => (string | number | readonly string[] | readonly number[])[];
export declare const publishUnwoken: (tx: Queryable, webhooks: Webhooks, input: PublishInput) => Promise<PublishedEvent>;
export declare function spawnWorkerProcess(options: {
    databaseUrl: string;
    schema: string;
    env?: Record<string, string>;
}): Promise<ChildProcess>;
export declare function startReceiver(behaviour?: Behaviour): Promise<{
    url: string;
    port: number;
    received: Received[];
    behaviour: Behaviour;
    waitFor(count: number, timeoutMs?: number): Promise<void>;
    close(): Promise<void>;
}>;
export declare const stopProcess: (child: ChildProcess, signal?: NodeJS.Signals) => Promise<void>;
export declare const webhooksInternals: (webhooks: Webhooks) => WebhooksContext;

// ----- reachable, not exported: named by the declarations above, so their shape is part of the API
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
    id: string;
}
export interface BrokerTlsOptions {
    ca?: string | Buffer | Array<string | Buffer>;
    rejectUnauthorized?: boolean;
}
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
    format: 'surety' | 'standard';
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
export interface DeliveryOutcome {
    id: string;
    outcome: 'delivered' | 'retry' | 'failed' | 'throttled' | 'defer';
    nextAt: string | null;
    status: number | null;
    errorCode: string | null;
}
export interface PoolOptions {
    maxLifetimeMs?: number;
    idleMs?: number;
    maxConnections?: number;
    now?: () => number;
}
export type StoredAuth = {
    type: 'basic';
    username: string;
    password: string;
} | {
    type: 'oauth2';
    tokenUrl: string;
    clientId: string;
    clientSecret: string;
    scope: string | null;
    audience: string | null;
    clientAuth: 'basic' | 'body';
} | {
    type: 'mtls';
    certificate: string;
    privateKey: string;
    ca: string | null;
    fingerprint: string;
    notAfter: string;
    subject: string;
};
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
export declare function statements(schema: string): {
    circuitNotice: import("@surety/db").Statement;
    backlogCrossings: import("@surety/db").Statement;
    secretsExpiring: import("@surety/db").Statement;
    throttlesEnded: import("@surety/db").Statement;
    monitorLock: import("@surety/db").Statement;
    throttle: import("@surety/db").Statement;
    releaseClosed: import("@surety/db").Statement;
    releaseLateHolds: import("@surety/db").Statement;
    health: import("@surety/db").Statement;
    disable: import("@surety/db").Statement;
    complete: import("@surety/db").Statement;
    completeAgain: import("@surety/db").Statement;
    giveBack: import("@surety/db").Statement;
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
