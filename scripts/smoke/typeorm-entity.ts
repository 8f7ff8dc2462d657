// The TypeORM smoke apps' entity and DataSource (typeorm-owns.ts, typeorm-joined.ts).
import { DataSource, EntitySchema } from 'typeorm';

export async function paymentsDataSource(schema: string) {
  const Payment = new EntitySchema<{ id: string; cents: number }>({
    name: 'Payment',
    tableName: 'payments',
    schema,
    columns: { id: { type: String, primary: true }, cents: { type: Number } },
  });
  const dataSource = await new DataSource({
    type: 'postgres',
    url: process.env.DATABASE_URL,
    entities: [Payment],
  }).initialize();
  return { dataSource, Payment };
}
