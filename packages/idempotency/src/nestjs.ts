import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type CallHandler,
  createParamDecorator,
  type DynamicModule,
  type ExecutionContext,
  Inject,
  Injectable,
  Module,
  type NestInterceptor,
  UseInterceptors,
} from '@nestjs/common';
import type { Tx as SuretyTx } from '@surety/db';
import { lastValueFrom, type Observable, of } from 'rxjs';
import { describingHeaders, PROBLEM_CONTENT_TYPE, problemBody } from './http.js';
import type { PhasedOperation } from './phases.js';
import { type AdapterOptions, errorAnswer, type RunResult, requireTx, runIdempotent } from './run.js';
import type { StoredResponse } from './types.js';

// NestJS, on the Express and the Fastify platform. Written without decorator syntax (the decorators
// are applied as functions) and without emitted parameter types: every dependency names its
// injection token, so this works whatever compiles the application (tsc, swc, esbuild/tsx).

/** The request of either platform, as this adapter reads it. */
export interface NestRequest {
  method: string;
  url: string;
  originalUrl?: string;
  headers: Record<string, string | string[] | undefined>;
  body?: unknown;
}

/** The response of either platform (an Express `Response`, a `FastifyReply`), as this adapter writes it. */
interface NestResponse {
  statusCode: number;
  status(code: number): unknown;
  header(name: string, value: string): unknown;
  getHeaders(): Record<string, unknown>;
}

/** The options of `SuretyIdempotencyModule.forRoot`: those of every adapter, and whether a key is required. */
export interface NestIdempotencyOptions extends AdapterOptions<NestRequest> {
  /** Whether a request without a key is a 400; `@Idempotent({ required })` overrides it per route. @default true */
  required?: boolean;
}

/** The injection token of the module's options. */
export const IDEMPOTENCY_OPTIONS: unique symbol = Symbol.for('surety.idempotency.nestjs.options');

// The transaction of each request inside an idempotent route, and of the code it calls.
const requests = new WeakMap<object, SuretyTx>();
const current = new AsyncLocalStorage<SuretyTx>();
// What `@Idempotent()` said about each route handler.
/** What `@Idempotent()` says of one route. */
export interface IdempotentRoute {
  /** @default the module's `required`, else true */
  required?: boolean;
  /**
   * Runs a phased operation (docs/side-effects.md): the handler validates the request and returns
   * the operation's input; the operation runs its phases and its answer is sent. Key required.
   */
  // biome-ignore lint/suspicious/noExplicitAny: the input's type is the operation's own
  phased?: PhasedOperation<any>;
}

const routes = new WeakMap<object, IdempotentRoute>();

/**
 * The transaction of an idempotent route's request (`@Idempotent()`). Throws NoTransactionError
 * (`SURETY_IDEMPOTENCY_NO_TRANSACTION`) elsewhere, where a write would run outside the key's transaction.
 */
export const txOf = (request: object): SuretyTx => requireTx(requests.get(request));

/**
 * The transaction of the idempotent request being handled, for services: inject it with
 * `@Inject(IdempotencyTransaction)` and call `tx()` while the route runs. Throws NoTransactionError
 * outside an idempotent route.
 */
export class IdempotencyTransaction {
  tx(): SuretyTx {
    return requireTx(current.getStore());
  }
}
Injectable()(IdempotencyTransaction);

function send(res: NestResponse, status: number, headers: Record<string, string>): void {
  res.status(status);
  for (const [name, value] of Object.entries(headers)) res.header(name, value);
}

/** Serialises what the handler returned as Nest would (JSON, or text), so the stored bytes are the sent bytes. */
function capture(res: NestResponse, value: unknown): StoredResponse {
  let body: string;
  const type = (res.getHeaders()['content-type'] as string | undefined) ?? undefined;
  if (value === undefined || value === null) body = '';
  else if (typeof value === 'string') {
    body = value;
    if (!type) res.header('content-type', 'text/plain; charset=utf-8');
  } else if (Buffer.isBuffer(value) || typeof (value as { getStream?: unknown }).getStream === 'function') {
    throw new TypeError('idempotent routes must return JSON or a string, not a Buffer or a stream');
  } else {
    body = JSON.stringify(value);
    if (!type) res.header('content-type', 'application/json; charset=utf-8');
  }
  return { status: res.statusCode, headers: describingHeaders(res.getHeaders()), body };
}

/**
 * The interceptor `@Idempotent()` puts on a route: runs the handler once per key in one transaction
 * with the key record, answers retries with the stored response, 409 while the original runs and
 * 422 for a reused key. What the handler returns is sent as JSON (or text).
 */
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(private readonly options: NestIdempotencyOptions) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const http = context.switchToHttp();
    const request = http.getRequest<NestRequest>();
    const res = http.getResponse<NestResponse>();
    const { options } = this;
    const route = routes.get(context.getHandler()) ?? {};
    const url = request.originalUrl ?? request.url;
    const result: RunResult = await runIdempotent({
      options,
      request,
      header: request.headers['idempotency-key'],
      required: route.required ?? options.required ?? true,
      fingerprintInput: () => ({ method: request.method, url, body: request.body }),
      phased: route.phased && {
        operation: route.phased,
        input: () => lastValueFrom(next.handle(), { defaultValue: undefined }),
      },
      handler: async (tx) => {
        requests.set(request, tx);
        try {
          const value = await current.run(tx, () =>
            lastValueFrom(next.handle(), { defaultValue: undefined }),
          );
          return capture(res, value);
        } catch (error) {
          const stored = errorAnswer({ options, error, request });
          if (stored) return stored;
          throw error;
        } finally {
          requests.delete(request);
        }
      },
    });
    if (result.kind === 'problem') {
      const { problem } = result;
      send(res, problem.status, { ...problem.headers, 'content-type': PROBLEM_CONTENT_TYPE });
      return of(problemBody(problem, url));
    }
    send(res, result.response.status, result.response.headers);
    return of(result.response.body);
  }
}
Injectable()(IdempotencyInterceptor);
(Inject(IDEMPOTENCY_OPTIONS) as ParameterDecorator)(IdempotencyInterceptor, undefined, 0);

/**
 * Makes a route idempotent: its handler runs inside the key's transaction (`@Tx()`), and what it
 * returns is committed with the key before a byte is sent. A handler that throws is rolled back
 * (unless `errorResponse` stores the error's answer); a 5xx it sets is rolled back.
 * @example
 * @Post('payments')
 * @Idempotent()
 * async create(@Body() body: PaymentInput, @Tx() tx: Tx) { … }
 */
export function Idempotent(route: IdempotentRoute = {}): MethodDecorator {
  const intercept = UseInterceptors(IdempotencyInterceptor);
  return (target, key, descriptor) => {
    routes.set(descriptor.value as object, route);
    return intercept(target, key, descriptor);
  };
}

/** `Tx` of @surety/db, the type of what `@Tx()` gives. */
export type Tx = SuretyTx;

/** The transaction of the idempotent route, as a handler parameter: `@Tx() tx: Tx`. */
export const Tx: () => ParameterDecorator = createParamDecorator(
  (_data: unknown, context: ExecutionContext) => txOf(context.switchToHttp().getRequest<object>()),
);

/**
 * The module: import `SuretyIdempotencyModule.forRoot({ engine, tenant })` once, in the root module
 * (it is global); then `@Idempotent()` on a route turns the layer on for it.
 * @example
 * @Module({ imports: [SuretyIdempotencyModule.forRoot({ engine, tenant: (req) => req.headers['x-tenant'] })] })
 * class AppModule {}
 */
// biome-ignore lint/complexity/noStaticOnlyClass: a NestJS dynamic module is a class with a static forRoot
export class SuretyIdempotencyModule {
  static forRoot(options: NestIdempotencyOptions): DynamicModule {
    return {
      module: SuretyIdempotencyModule,
      global: true,
      providers: [
        { provide: IDEMPOTENCY_OPTIONS, useValue: options },
        IdempotencyInterceptor,
        IdempotencyTransaction,
      ],
      exports: [IDEMPOTENCY_OPTIONS, IdempotencyInterceptor, IdempotencyTransaction],
    };
  }
}
Module({})(SuretyIdempotencyModule);
