/**
 * RFC 7396 JSON Merge Patch: objects merge recursively, `null` removes a member, anything else
 * (arrays included) replaces.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const base: Record<string, unknown> =
    target !== null && typeof target === 'object' && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [name, value] of Object.entries(patch as Record<string, unknown>)) {
    if (value === null) delete base[name];
    else base[name] = mergePatch(base[name], value);
  }
  return base;
}
