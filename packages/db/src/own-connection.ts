import type pg from 'pg';

/**
 * The settings for a connection Surety opens beside a pool it was given (LISTEN, NOTIFY): that pool's
 * own. pg-pool keeps what it was built with in `pool.options` and opens its clients with exactly
 * that, so host, port, user, database, ssl, a password function or a connection string all carry
 * over. It hides `password` from enumeration (so a logged pool does not print it), which a spread
 * would drop: it is copied by name.
 */
export function ownConnectionSettings(pool: pg.Pool): pg.ClientConfig {
  const given = pool.options as pg.PoolConfig;
  const settings: pg.ClientConfig = { ...given };
  if ('password' in given) settings.password = given.password;
  return settings;
}
