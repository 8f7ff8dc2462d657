// The NestJS smoke apps' module (nestjs-express.ts, nestjs-fastify.ts): a controller whose handler
// writes on the key's transaction through an injected service, compiled by tsc with decorators.
import 'reflect-metadata';
import { Body, Controller, Inject, Injectable, Module, Post, Res } from '@nestjs/common';
import type { Idempotency } from '@surety/idempotency';
import { IdempotencyTransaction, Idempotent, SuretyIdempotencyModule } from '@surety/idempotency/nestjs';
import type { PaymentBody } from './check.js';

export function paymentsModule(engine: Idempotency, schema: string): new () => unknown {
  @Injectable()
  class PaymentService {
    constructor(@Inject(IdempotencyTransaction) private readonly txs: IdempotencyTransaction) {}
    async create(body: PaymentBody) {
      await this.txs
        .tx()
        .query(`insert into ${schema}.payments (id, cents) values ($1, $2)`, [body.id, body.cents]);
      if (body.fail) throw new Error('the card network timed out, after the write');
      return { id: body.id, cents: body.cents };
    }
  }

  @Controller('payments')
  class PaymentController {
    constructor(@Inject(PaymentService) private readonly payments: PaymentService) {}

    @Post()
    @Idempotent()
    create(@Body() body: PaymentBody, @Res({ passthrough: true }) res: { status(code: number): unknown }) {
      res.status(201);
      return this.payments.create(body);
    }
  }

  @Module({
    imports: [SuretyIdempotencyModule.forRoot({ engine })],
    controllers: [PaymentController],
    providers: [PaymentService],
  })
  class AppModule {}
  return AppModule;
}
