import { MissingPeerError } from './errors.js';
import type { PgliteQueryable } from './types.js';

/**
 * The part of a `PGlite` instance (from `@electric-sql/pglite`) that Surety uses. Written out here
 * so that this package's types do not import PGlite's: its declarations need the Emscripten types,
 * and would break every consumer that type-checks its dependencies (`skipLibCheck: false`) whether
 * or not it uses the embedded database. A `PGlite` instance satisfies it (a test checks).
 */
export interface PgliteInstance extends PgliteQueryable {
  readonly waitReady: Promise<void>;
  readonly closed: boolean;
  transaction<T>(callback: (tx: PgliteQueryable) => Promise<T>): Promise<T>;
  listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** The optional peer dependency that holds the embedded database. */
export const PGLITE_PACKAGE = '@electric-sql/pglite';

/**
 * Loads PGlite on first use, so that an application on PostgreSQL never loads it (nor needs it
 * installed). A missing package becomes a MissingPeerError that names it; any other failure (a
 * broken install) is passed on as it is. The import is written out (not a variable) so that
 * bundlers see it. The parameters are for tests; their types are spelled out so that PGlite's own
 * types never reach this package's declarations.
 */
export async function loadPglite(
  importer: () => Promise<unknown> = () => import('@electric-sql/pglite'),
  specifier: string = PGLITE_PACKAGE,
): Promise<new (dataDir?: string) => PgliteInstance> {
  try {
    const mod = (await importer()) as { PGlite: new (dataDir?: string) => PgliteInstance };
    return mod.PGlite;
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (
      (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
      String((error as Error).message).includes(specifier)
    ) {
      throw new MissingPeerError(specifier, 'The embedded database (PGlite)', { cause: error });
    }
    throw error;
  }
}
