// The public API of @surety/db: what each entry point exports (scripts/api-report.mjs; do not edit by hand).

// ===== @surety/db
export type CursorPart = 'timestamp' | 'text' | 'bigint';
export type CursorValues<P extends readonly CursorPart[]> = {
    [K in keyof P]: string;
};
export declare class DatabaseUnavailableError extends DbError {
    readonly code: 'SURETY_DB_UNAVAILABLE' | 'SURETY_DB_POOLER_MISCONFIGURED';
    constructor(message: string, options?: {
        cause?: unknown;
    }, code?: 'SURETY_DB_UNAVAILABLE' | 'SURETY_DB_POOLER_MISCONFIGURED');
}
export declare class DbError extends Error {
    readonly code: DbErrorCode;
    constructor(code: DbErrorCode, message: string, options?: {
        cause?: unknown;
    });
}
export type DbErrorCode = 'SURETY_DB_UNAVAILABLE' | 'SURETY_DB_POOLER_MISCONFIGURED' | 'SURETY_INVALID_CURSOR' | 'SURETY_DB_MISSING_PEER' | 'SURETY_DB_NESTED_TRANSACTION' | 'SURETY_DB_TRANSACTION_OWNED';
export interface DriverConnection {
    query(text: string, params: readonly unknown[], options: QueryOptions): Promise<QueryResult<unknown>>;
    exec?(script: string): Promise<unknown>;
}
export interface DriverSqlOptions<C> {
    name: string;
    connection: DriverConnection;
    transaction<T>(fn: (connection: DriverConnection, client: C) => Promise<T>): Promise<T>;
    listen?: Sql['listen'];
    notify?: Sql['notify'];
    close?: () => Promise<void>;
}
export interface FirstStatement {
    statement: Statement;
    params: readonly unknown[];
    before?: readonly {
        statement: Statement;
        params: readonly unknown[];
    }[];
}
export declare class InvalidCursorError extends DbError {
    readonly code: 'SURETY_INVALID_CURSOR';
    constructor(message?: string);
}
export interface JoinedTransaction extends Sql, Tx {
    committed(): void;
}
export interface KeysetCursor<P extends readonly CursorPart[]> {
    readonly parts: P;
    encode(values: CursorValues<P>): string;
    decode(cursor: string): CursorValues<P>;
}
export interface MigrateOptions {
    schema?: string;
    sets: readonly MigrationSet[];
}
export interface Migration {
    readonly id: number;
    readonly name: string;
    readonly script: string;
}
export interface MigrationSet {
    readonly set: string;
    readonly migrations: readonly Migration[];
}
export declare class MissingPeerError extends DbError {
    readonly code: 'SURETY_DB_MISSING_PEER';
    readonly packageName: string;
    constructor(packageName: string, feature: string, options?: {
        cause?: unknown;
    });
}
export declare class NestedTransactionError extends DbError {
    readonly code: 'SURETY_DB_NESTED_TRANSACTION';
    constructor(statement: string, reason?: string);
}
export interface OpenSqlOptions {
    databaseUrl?: string | undefined;
    dataDir?: string | undefined;
    max?: number;
    applicationName?: string;
    onError?: (error: Error) => void;
    pooler?: PoolerMode;
    listenUrl?: string | undefined;
}
export interface OuterTransaction {
    name: string;
    query: Queryable['query'];
    pipeline?: (statements: readonly PipelinedStatement[]) => Promise<QueryResult<Record<string, unknown>>[]>;
    exec?: (script: string) => Promise<unknown>;
    savepoint?: <T>(fn: (inner: OuterTransaction) => Promise<T>) => Promise<T>;
    client: unknown;
}
export interface ParameterizedStatement {
    statement: Statement;
    params: readonly unknown[];
}
export interface PgErrorInfo {
    readonly code: string;
    readonly constraint?: string;
    readonly table?: string;
    readonly schema?: string;
    readonly message: string;
}
export interface PgSqlOptions {
    connectionString?: string;
    pool?: pg.Pool;
    max?: number;
    connectionTimeoutMillis?: number;
    applicationName?: string;
    onError?: (error: Error) => void;
    pooler?: PoolerMode;
    listenUrl?: string;
}
export interface PgliteInstance extends PgliteQueryable {
    readonly waitReady: Promise<void>;
    readonly closed: boolean;
    transaction<T>(callback: (tx: PgliteQueryable) => Promise<T>): Promise<T>;
    listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>>;
    close(): Promise<void>;
}
export interface PgliteQueryable {
    query<R>(query: string, params?: unknown[], options?: {
        rowMode?: 'object' | 'array';
    }): Promise<PgliteResult<R>>;
    exec(query: string): Promise<PgliteResult<unknown>[]>;
}
export interface PgliteResult<R> {
    rows: R[];
    affectedRows?: number;
    command?: string;
    fields?: readonly {
        name: string;
        dataTypeID: number;
    }[];
}
export interface PgliteSqlOptions {
    dataDir?: string;
    db?: PgliteInstance;
}
export interface PipelinedStatement {
    statement: string | Statement;
    params?: readonly unknown[];
}
export declare class PoolerMisconfiguredError extends DatabaseUnavailableError {
    readonly code: 'SURETY_DB_POOLER_MISCONFIGURED';
    constructor(message: string, options?: {
        cause?: unknown;
    });
}
export type PoolerMode = 'none' | 'transaction';
export interface QueryField {
    readonly name: string;
    readonly dataTypeID: number;
}
export interface QueryOptions {
    rowMode?: 'object' | 'array';
}
export interface QueryResult<R> {
    rows: R[];
    rowCount: number;
    command: string;
    fields: readonly QueryField[];
}
export interface Queryable {
    query<R = Record<string, unknown>>(statement: string | Statement, params?: readonly unknown[], options?: QueryOptions): Promise<QueryResult<R>>;
}
export interface Sql extends Queryable {
    readonly kind: 'pg' | 'pglite' | 'driver';
    transaction<T>(fn: (tx: Tx, first: QueryResult<Record<string, unknown>> | undefined) => Promise<T>, options?: TransactionOptions): Promise<T>;
    listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
    notify(channel: string, payload?: string): Promise<void>;
    close(): Promise<void>;
}
export interface Statement {
    readonly name?: string;
    readonly text: string;
}
export declare class TransactionOwnedError extends DbError {
    readonly code: 'SURETY_DB_TRANSACTION_OWNED';
    constructor(message: string);
}
export interface Tx extends Queryable {
    readonly inTransaction: true;
    readonly driver: TxDriver;
    exec(script: string): Promise<void>;
    atCommit(statement: string | ParameterizedStatement): void;
    afterCommit(callback: () => void): void;
}
export type TxDriver = {
    readonly kind: 'pg';
    readonly client: pg.PoolClient;
} | {
    readonly kind: 'pglite';
    readonly client: PgliteQueryable;
} | {
    readonly kind: 'driver';
    readonly name: string;
    readonly client: unknown;
};
export interface Unstorable {
    path: string;
    reason: UnstorableReason;
    message: string;
}
export type UnstorableReason = 'nul' | 'lone_surrogate';
export declare function classify(error: unknown): unknown;
export declare function createDriverSql<C>(options: DriverSqlOptions<C>): Sql;
export declare function createPgSql(options?: PgSqlOptions): Sql;
export declare function createPgliteSql(options?: PgliteSqlOptions): Promise<Sql>;
export declare const cursorTimestampSql: (column: string) => string;
export declare function detectTransactionPooler(settings: pg.ClientConfig): Promise<boolean>;
export declare function driverTx<C>(options: {
    name: string;
    client: C;
    connection: DriverConnection;
}): Tx;
export declare function findUnstorable(value: unknown, basePath?: string): Unstorable | undefined;
export declare function isConnectionError(error: unknown): boolean;
export declare const isDatabaseUnavailableError: (value: unknown) => value is DatabaseUnavailableError;
export declare const isDbError: (value: unknown) => value is DbError;
export declare const isInvalidCursorError: (value: unknown) => value is InvalidCursorError;
export declare const isMissingPeerError: (value: unknown) => value is MissingPeerError;
export declare const isNestedTransactionError: (value: unknown) => value is NestedTransactionError;
export declare const isPoolerMisconfiguredError: (value: unknown) => value is PoolerMisconfiguredError;
export declare function isStorableTimestamp(at: Date | number): boolean;
export declare const isTransactionOwnedError: (value: unknown) => value is TransactionOwnedError;
export declare function joinTransaction(outer: OuterTransaction): JoinedTransaction;
export declare function keysetCursor<const P extends readonly CursorPart[]>(...parts: P): KeysetCursor<P>;
export declare function literal(value: string | number | boolean | null): string;
export declare function loadMigrations(set: string, dir: URL): MigrationSet;
export declare function migrate(sql: Sql, options: MigrateOptions): Promise<{
    applied: string[];
}>;
export declare function openSql(options: OpenSqlOptions): Promise<Sql>;
export declare function pgErrorInfo(error: unknown): PgErrorInfo | undefined;
export declare function quoteSchema(schema: string): string;
export declare function sqlState(error: unknown): string | undefined;

// ===== @surety/db/testing
export interface TestDatabase {
    sql: Sql;
    schema: string;
    backend: 'pg' | 'pglite';
    connect(max?: number): Sql;
    close(): Promise<void>;
}
export declare function createTestDatabase(options?: {
    max?: number;
}): Promise<TestDatabase>;
export declare const directOnly: string | false;
export declare const needsPostgres: string | false;
export declare const poolerOptions: {
    pooler?: 'transaction';
    listenUrl?: string;
};
export declare const postgresUrl: string | undefined;

// ===== @surety/db/kysely
export interface KyselyOfOptions {
    plugins?: KyselyPlugin[];
}
export declare function kyselyOf<DB>(tx: Tx, options?: KyselyOfOptions): Kysely<DB>;
export declare function kyselySql<DB>(db: Kysely<DB>): Sql;
export declare function kyselyTx<DB>(trx: Transaction<DB>): Tx;

// ===== @surety/db/drizzle
export type TxDrizzle<TSchema extends Record<string, unknown> = Record<string, never>> = PgDatabase<PgQueryResultHKT, TSchema>;
export declare function drizzleOf<TSchema extends Record<string, unknown> = Record<string, never>>(tx: Tx, config?: DrizzleConfig<TSchema>): TxDrizzle<TSchema>;
export declare function drizzleSql<TSchema extends Record<string, unknown>>(db: PgDatabase<PgQueryResultHKT, TSchema>): Sql;
export declare function drizzleTx<TSchema extends Record<string, unknown>>(trx: PgDatabase<PgQueryResultHKT, TSchema>): Tx;

// ===== @surety/db/drizzle-pglite
export { TxDrizzle }; // as in @surety/db/drizzle
export declare function drizzleOf<TSchema extends Record<string, unknown> = Record<string, never>>(tx: Tx, config?: DrizzleConfig<TSchema>): TxDrizzle<TSchema>;
export { drizzleSql }; // as in @surety/db/drizzle
export { drizzleTx }; // as in @surety/db/drizzle

// ===== @surety/db/knex
export interface KnexOfOptions {
    config?: Omit<Knex.Config, 'client' | 'connection' | 'pool'>;
}
export declare function knexOf(tx: Tx, options?: KnexOfOptions): Knex;
export declare function knexSql(knex: Knex): Sql;
export declare function knexTx(trx: Knex.Transaction): Tx;

// ===== @surety/db/postgres-js
export declare function postgresBegin<T>(pgjs: postgres.Sql, fn: (trx: postgres.TransactionSql, joined: JoinedTransaction) => Promise<T>): Promise<T>;
export declare function postgresOf(tx: Tx): postgres.TransactionSql;
export declare function postgresSql(pgjs: postgres.Sql, options?: {
    end?: boolean;
}): Sql;
export declare function postgresTx(trx: postgres.TransactionSql): JoinedTransaction;

// ===== @surety/db/typeorm
export declare function typeormOf(dataSource: DataSource, tx: Tx): EntityManager;
export declare function typeormSql(dataSource: DataSource): Sql;
export declare function typeormTransaction<T>(dataSource: DataSource, fn: (manager: EntityManager, joined: JoinedTransaction) => Promise<T>): Promise<T>;
export declare function typeormTx(from: EntityManager | QueryRunner): JoinedTransaction;

// ===== @surety/db/prisma
export interface PrismaClientLike<TxClient extends PrismaTransactionClient = PrismaTransactionClient> {
    $transaction<T>(fn: (tx: TxClient) => Promise<T>, options?: {
        maxWait?: number;
        timeout?: number;
        isolationLevel?: string;
    }): Promise<T>;
}
export interface PrismaInteractive<TxClient> {
    $transaction<T>(fn: (tx: TxClient) => Promise<T>, options?: {
        maxWait?: number;
        timeout?: number;
    }): Promise<T>;
}
export interface PrismaTransactionClient {
    $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
    $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
}
export declare function onSurety<T>(tx: Tx, fn: () => PromiseLike<T>): Promise<T>;
export declare function prismaAdapterOnSurety(options?: {
    schema?: string;
}): PrismaPg;
export declare function prismaOf<TxClient = PrismaTransactionClient>(tx: Tx): TxClient;
export declare function prismaOnSurety<TxClient, T>(tx: Tx, prisma: PrismaInteractive<TxClient>, fn: (db: TxClient) => Promise<T>, options?: {
    maxWait?: number;
    timeout?: number;
}): Promise<T>;
export declare function prismaSql<TxClient extends PrismaTransactionClient>(prisma: PrismaClientLike<TxClient> & PrismaTransactionClient, options?: {
    maxWait?: number;
    timeout?: number;
}): Sql;
export declare function prismaTransaction<TxClient extends PrismaTransactionClient, T>(prisma: PrismaClientLike<TxClient>, fn: (tx: TxClient, joined: JoinedTransaction) => Promise<T>, options?: {
    maxWait?: number;
    timeout?: number;
}): Promise<T>;
export declare function prismaTx(tx: PrismaTransactionClient): JoinedTransaction;

// ----- reachable, not exported: named by the declarations above, so their shape is part of the API
export interface TransactionOptions {
    first?: string | FirstStatement;
}
