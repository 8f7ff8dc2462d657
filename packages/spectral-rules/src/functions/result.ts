import type { IFunctionResult } from '@stoplight/spectral-core';

/** A path into the document, as Spectral reports it. */
export type Path = NonNullable<IFunctionResult['path']>;

/** A finding at `path` (absolute, into the document) with a message that says how to fix it. */
export const finding = (path: Path, message: string): IFunctionResult => ({ message, path: [...path] });

/** `POST /payments` (or `POST webhooks.order.shipped`) for messages. */
export function label(method: string, path: Path): string {
  const verb = method.toUpperCase();
  if (path[0] === 'webhooks') return `${verb} of webhook "${String(path[1])}"`;
  const callback = path.indexOf('callbacks');
  if (callback > 0)
    return `${verb} of callback "${String(path[callback + 1])}" (${String(path[2]).toUpperCase()} ${String(path[1])})`;
  return `${verb} ${String(path[1])}`;
}
