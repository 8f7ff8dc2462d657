// After tsc: make the CLI executable (npm links workspace bins before `prepare` builds them, so the
// file does not exist yet when npm would set its mode).
import { chmodSync } from 'node:fs';

chmodSync(new URL('../apps/server/dist/cli.js', import.meta.url), 0o755);
