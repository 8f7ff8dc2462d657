import { defaultMaxListeners, getMaxListeners, setMaxListeners } from 'node:events';

const forwarders = new FinalizationRegistry<{ signal: AbortSignal; listener: () => void }>(
  ({ signal, listener }) => signal.removeEventListener('abort', listener),
);
// A returned response keeps its attempt's controller alive, so the caller can still abort its body.
export const keepAlive = new WeakMap<Response, AbortController>();

/**
 * Makes `signal` abort `controller`. The listener holds the controller weakly and is removed once the
 * controller is collected, so a long-lived caller signal (a shutdown signal passed to every call) does not
 * gather one listener per call for ever. It is built here, outside the request's scope, so that its closure
 * cannot share a V8 context that holds the controller strongly.
 */
export function forwardAbort(signal: AbortSignal, controller: AbortController): () => void {
  const ref = new WeakRef(controller);
  const listener = () => ref.deref()?.abort(signal.reason);
  // As undici does: many concurrent calls sharing one signal are expected, not a leak.
  if (getMaxListeners(signal) === defaultMaxListeners) setMaxListeners(1500, signal);
  signal.addEventListener('abort', listener, { once: true });
  forwarders.register(controller, { signal, listener }, listener);
  return listener;
}

export function unforward(signal: AbortSignal, listener: () => void): void {
  signal.removeEventListener('abort', listener);
  forwarders.unregister(listener);
}
