// How the publish route tells the engine's validator that a tenant's payload was already checked.
// `@surety/webhooks` calls its `validate(type, data)` synchronously, without the tenant, and a
// tenant's types live in the database: the route validates first (tenant-types.ts), then marks the
// very `data` object it passes to publish. The mark is the object's identity, held weakly, and is
// used once: nothing a client sends can forge it, and it never outlives the request.
const marks = new WeakMap<object, string>();

/** Marks `data` as valid for `type`, for the next publish of that object. */
export function vouch(type: string, data: object): void {
  marks.set(data, type);
}

/** True (once) when `data` was marked valid for `type`. */
export function takeVouch(type: string, data: unknown): boolean {
  if (typeof data !== 'object' || data === null || marks.get(data) !== type) return false;
  marks.delete(data);
  return true;
}
