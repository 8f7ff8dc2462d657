// The ORM smoke matrix's apps (scripts/packages/orm-smoke.mjs runs them): per ORM, one folder that
// installs the packed tarballs with that ORM, its driver and its framework only, and runs an entry
// (scripts/smoke/<entry>) per direction, then the docs' examples of that ORM.

/** The versions the apps install: those the workspace tests against. */
export const VERSIONS = {
  pg: '^8.23.1',
  express: '^5.3.0',
  '@types/express': '^5.0.6',
  fastify: '^5.12.8',
  '@types/node': '^20.19.43',
  kysely: '^0.28.19',
  'drizzle-orm': '^0.45.4',
  knex: '^3.3.0',
  postgres: '^3.4.9',
  typeorm: '^0.3.31',
  '@prisma/client': '^7.10.0',
  '@prisma/adapter-pg': '^7.10.0',
  prisma: '^7.10.0',
  '@nestjs/common': '^11.2.10',
  '@nestjs/core': '^11.2.10',
  '@nestjs/platform-express': '^11.2.10',
  '@nestjs/platform-fastify': '^11.2.8',
  'reflect-metadata': '^0.2.2',
  rxjs: '^7.8.2',
  hono: '^4.13.19',
};

const EXPRESS = ['express', '@types/express'];
const NEST = ['@nestjs/common', '@nestjs/core', 'reflect-metadata', 'rxjs', 'pg'];
/** The apps: their sources (the first files are the entry points run), and what they install. */
export const APPS = [
  {
    name: 'kysely',
    entries: ['kysely.ts', 'kysely-owns.ts'],
    docs: ['orm/kysely-surety-owns.ts', 'orm/kysely-kysely-owns.ts', 'idempotency/fastify.ts'],
    deps: ['kysely', 'pg', 'fastify'],
  },
  {
    name: 'drizzle',
    entries: ['drizzle.ts', 'drizzle-owns.ts'],
    docs: ['orm/drizzle-surety-owns.ts', 'orm/drizzle-drizzle-owns.ts'],
    deps: ['drizzle-orm', 'pg', ...EXPRESS, 'fastify'],
  },
  {
    name: 'knex',
    entries: ['knex.ts', 'knex-owns.ts'],
    docs: ['orm/knex-surety-owns.ts', 'orm/knex-knex-owns.ts', 'idempotency/hono.ts'],
    deps: ['knex', 'pg', 'fastify', 'hono'],
  },
  {
    name: 'postgres-js',
    entries: ['postgres-js.ts', 'postgres-js-begin.ts'],
    sources: ['joined.ts'],
    docs: ['orm/postgres-js.ts', 'idempotency/lease-express.ts', 'idempotency/express.ts'],
    deps: ['postgres', ...EXPRESS],
  },
  {
    name: 'prisma',
    entries: ['prisma-surety.ts', 'prisma-owns.ts', 'prisma-joined.ts'],
    sources: ['joined.ts'],
    docs: ['prisma/prisma.ts'],
    deps: ['@prisma/client', '@prisma/adapter-pg', ...EXPRESS],
    // The `prisma` CLI that generates the client brings PGlite and postgres.js (for `prisma dev`), and
    // npm keeps them after `npm prune --omit=dev` (they satisfy @surety/db's optional peers): it is
    // installed in a folder of its own, as a deploy that generates at build time leaves it behind.
    prisma: true,
  },
  {
    name: 'typeorm',
    entries: ['typeorm.ts', 'typeorm-owns.ts', 'typeorm-joined.ts'],
    sources: ['joined.ts', 'typeorm-entity.ts'],
    docs: ['orm/typeorm.ts'],
    deps: ['typeorm', 'pg', 'fastify'],
  },
  {
    name: 'nestjs-express',
    entries: ['nestjs-express.ts'],
    sources: ['nest-module.ts'],
    docs: ['nestjs/app.ts'],
    deps: [...NEST, '@nestjs/platform-express'],
  },
  {
    name: 'nestjs-fastify',
    entries: ['nestjs-fastify.ts'],
    sources: ['nest-module.ts'],
    deps: [...NEST, '@nestjs/platform-fastify'],
  },
];

// The packages an app installs from the tarballs, with every @surety dependency of theirs
// (@surety/idempotency depends on @surety/fetch since the effects outbox).
export const SURETY = [
  '@surety/core',
  '@surety/db',
  '@surety/fetch',
  '@surety/idempotency',
  '@surety/webhook-verify',
  '@surety/webhooks',
];
