// The Surety service's event catalogue (apps/server/src/service-events.ts) as this package's test
// data: the one realistic catalogue in the repository (seven types, nested objects, formats, nulls).
// A test-only import of the service, which the library itself never makes (issue 34: the catalogue
// left the library; docs/decisions.md).
import { createRegistry, type EventRegistry } from '../src/index.js';

export { serviceEvents } from '../../../apps/server/src/service-events.js';

import { serviceEvents } from '../../../apps/server/src/service-events.js';

/** A registry of the service's events, as `createRegistry()` built by default before issue 34. */
export const serviceRegistry = (): EventRegistry => createRegistry({ events: serviceEvents });
