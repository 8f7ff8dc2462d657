// The Redis adapter of express-idempotency ships no types; this is the part the benchmark uses. It is
// CommonJS with `exports.default = RedisAdapter`, so under ESM the class is `default.default`.
declare module 'express-idempotency-redis-adapter' {
  import type { IIdempotencyDataAdapter } from 'express-idempotency';

  class RedisAdapter implements IIdempotencyDataAdapter {
    constructor(options?: { ttl?: number; connectionConfig?: { url: string } });
    connect(): Promise<void>;
    disconnect(): Promise<void>;
    findByIdempotencyKey: IIdempotencyDataAdapter['findByIdempotencyKey'];
    create: IIdempotencyDataAdapter['create'];
    update: IIdempotencyDataAdapter['update'];
    delete: IIdempotencyDataAdapter['delete'];
  }
  const cjs: { default: typeof RedisAdapter };
  export default cjs;
}
