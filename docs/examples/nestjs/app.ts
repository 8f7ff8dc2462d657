// NestJS with @surety/idempotency/nestjs, as an application writes it: decorators, compiled by tsc
// with experimentalDecorators. On PostgreSQL with DATABASE_URL, else the embedded PGlite.
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { Body, Controller, Inject, Injectable, Module, Post, Res } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { openSql } from '@surety/db';
import { createIdempotency } from '@surety/idempotency';
import { IdempotencyTransaction, Idempotent, SuretyIdempotencyModule, Tx } from '@surety/idempotency/nestjs';

const sql = await openSql({ databaseUrl: process.env.DATABASE_URL });
const schema = `example_nest_${process.pid}`;
const engine = createIdempotency({ sql, schema });
await engine.migrate();
await sql.query(`create table ${schema}.orders (id serial primary key, note text not null)`);

// A service finds the request's transaction by injection…
@Injectable()
class OrderService {
  constructor(@Inject(IdempotencyTransaction) private readonly txs: IdempotencyTransaction) {}
  async create(note: string) {
    const { rows } = await this.txs
      .tx()
      .query<{ id: number }>(`insert into ${schema}.orders (note) values ($1) returning id`, [note]);
    return { id: rows[0]!.id, note };
  }
}

@Controller('orders')
class OrderController {
  constructor(@Inject(OrderService) private readonly orders: OrderService) {}

  @Post()
  @Idempotent()
  create(
    @Body() body: { note: string },
    @Res({ passthrough: true }) res: { header(n: string, v: string): void },
  ) {
    res.header('location', '/orders/1');
    return this.orders.create(body.note); // 201, committed with the key, replayed to retries
  }

  // …or a handler takes it as a parameter.
  @Post('declined')
  @Idempotent()
  async decline(
    @Body() body: { note: string },
    @Tx() tx: Tx,
    @Res({ passthrough: true }) res: { status(code: number): void },
  ) {
    await tx.query(`insert into ${schema}.orders (note) values ($1)`, [`declined ${body.note}`]);
    res.status(402);
    return { code: 'card_declined' };
  }
}

@Module({
  imports: [
    SuretyIdempotencyModule.forRoot({ engine, tenant: (req) => String(req.headers['x-tenant'] ?? '') }),
  ],
  controllers: [OrderController],
  providers: [OrderService],
})
class AppModule {}

const app = await NestFactory.create(AppModule, { logger: false }); // or new FastifyAdapter()
await app.listen(0, '127.0.0.1');
const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
const post = (path: string, key: string, body: unknown) =>
  fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key, 'x-tenant': 'acme' },
    body: JSON.stringify(body),
  });
try {
  const first = await post('/orders', 'key-1', { note: 'one' });
  const retry = await post('/orders', 'key-1', { note: 'one' });
  const reused = await post('/orders', 'key-1', { note: 'other' });
  const { code } = (await reused.json()) as { code: string };
  const declined = await post('/orders/declined', 'key-2', { note: 'x' });
  const { rows } = await sql.query<{ n: number }>(`select count(*)::int as n from ${schema}.orders`);
  const replayed = retry.headers.get('idempotent-replayed');
  console.log(first.status, retry.status, replayed, reused.status, code, declined.status, rows[0]!.n);
  // prints: 201 201 true 422 idempotency_key_reused 402 2
} finally {
  await app.close();
  await sql.query(`drop schema ${schema} cascade`);
  await sql.close();
}
