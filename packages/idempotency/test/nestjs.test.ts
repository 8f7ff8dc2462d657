// The NestJS module on the Express and the Fastify platform, through the semantics table every
// adapter passes (semantics.ts). The test runner emits no decorator metadata, so the decorators are
// applied as functions, exactly as the compiler would, and every dependency names its token.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { Body, Controller, type INestApplication, Inject, Module, Post, Res } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { IdempotencyTransaction, Idempotent, SuretyIdempotencyModule, Tx, txOf } from '../src/nestjs.js';
import { chargesFixture } from './charges.js';
import { headersOf, type Send, scenario } from './semantics.js';

const fx = chargesFixture();
const { insert, charges } = fx;

/** Express' Response and Fastify's reply both have these. */
interface Reply {
  status(code: number): unknown;
  header(name: string, value: string): unknown;
}
interface Note {
  note: string;
}

/** A service that finds the request's transaction by injection, not by a parameter. */
class ChargeService {
  constructor(private readonly txs: IdempotencyTransaction) {}
  create(note: string) {
    return insert(this.txs.tx(), note);
  }
}

class ChargesController {
  constructor(private readonly charges: ChargeService) {}
  async create(body: Note, res: Reply) {
    const id = await this.charges.create(body.note);
    res.header('location', `/charges/${id}`);
    return { id, note: body.note };
  }
  async decline(body: Note, tx: Tx, res: Reply) {
    await insert(tx, body.note);
    res.status(402);
    return { code: 'card_declined' };
  }
  async throws(body: Note, tx: Tx) {
    await insert(tx, body.note);
    throw new Error('boom');
  }
  async unavailable(body: Note, tx: Tx, res: Reply) {
    await insert(tx, body.note);
    res.status(503);
    return { code: 'downstream_unavailable' };
  }
}

// What `@Injectable() class ChargeService { constructor(@Inject(IdempotencyTransaction) …) }`,
// `@Controller() …` and `@Post('charges') @Idempotent() create(@Body() body, @Res({ passthrough: true }) res)`
// compile to.
const param = (decorator: ParameterDecorator, method: string | undefined, index: number, on: object) =>
  decorator(on, method, index);
const method = (decorators: MethodDecorator[], name: keyof ChargesController) => {
  const proto = ChargesController.prototype;
  for (const d of decorators.reverse()) d(proto, name, Object.getOwnPropertyDescriptor(proto, name)!);
};
param(Inject(IdempotencyTransaction), undefined, 0, ChargeService);
param(Inject(ChargeService), undefined, 0, ChargesController);
Controller()(ChargesController);
const passthrough = () => Res({ passthrough: true });
method([Post('charges'), Idempotent()], 'create');
param(Body(), 'create', 0, ChargesController.prototype);
param(passthrough(), 'create', 1, ChargesController.prototype);
for (const [name, path] of [
  ['decline', 'decline'],
  ['throws', 'throw'],
  ['unavailable', 'unavailable'],
] as const) {
  method([Post(path), Idempotent()], name);
  param(Body(), name, 0, ChargesController.prototype);
  param(Tx(), name, 1, ChargesController.prototype);
  param(passthrough(), name, 2, ChargesController.prototype);
}

async function start(platform: 'express' | 'fastify'): Promise<{ send: Send; close: () => Promise<void> }> {
  class AppModule {}
  Module({
    imports: [SuretyIdempotencyModule.forRoot({ engine: fx.engine, tenant: () => 'acme' })],
    controllers: [ChargesController],
    providers: [
      {
        provide: ChargeService,
        useFactory: (t: IdempotencyTransaction) => new ChargeService(t),
        inject: [IdempotencyTransaction],
      },
    ],
  })(AppModule);
  const adapter = platform === 'express' ? new ExpressAdapter() : new FastifyAdapter();
  const app: INestApplication = await NestFactory.create(AppModule, adapter, { logger: false });
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  return {
    async send(path, key, body) {
      const res = await fetch(base + path, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(key === undefined ? {} : { 'idempotency-key': key }),
        },
        body: JSON.stringify(body),
      });
      return { status: res.status, headers: headersOf(res.headers), body: await res.text() };
    },
    close: () => app.close(),
  };
}

scenario('NestJS on Express', () => start('express'), charges);
scenario('NestJS on Fastify', () => start('fastify'), charges);

test('txOf outside an idempotent route throws the coded NoTransactionError', () => {
  assert.throws(() => txOf({}), { code: 'SURETY_IDEMPOTENCY_NO_TRANSACTION' });
  assert.throws(() => new IdempotencyTransaction().tx(), { code: 'SURETY_IDEMPOTENCY_NO_TRANSACTION' });
});
