import type { FastifyPluginAsync } from 'fastify';

/** Liveness and readiness (`/healthz`, `/readyz`): public, hidden from the API document. */
export const healthRoutes: FastifyPluginAsync = async (app) => {
  app.get(
    '/healthz',
    { config: { public: true }, schema: { summary: 'Liveness', hide: true } },
    async () => ({
      status: 'ok',
    }),
  );
  app.get(
    '/readyz',
    { config: { public: true }, schema: { summary: 'Readiness: the database answers', hide: true } },
    async (_request, reply) => {
      try {
        await Promise.race([
          app.sql.query('select 1'),
          new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000).unref()),
        ]);
        return { status: 'ready' };
      } catch {
        reply.code(503).header('retry-after', '1');
        return { status: 'unavailable' };
      }
    },
  );
};
