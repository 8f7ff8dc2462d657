// @ts-check
// A view's polling: while it has work in flight (pending deliveries), it re-reads it every
// `intervalMs`, for at most `forMs` after the last action. One poller per view instance; the router
// stops it when the view is left.

/**
 * @typedef {object} PollerOptions
 * @property {number} intervalMs between two reads
 * @property {number} forMs polling stops this long after the last start, even if something stays
 *   pending (a retry hours away)
 * @property {() => boolean} alive whether the view is still shown
 * @property {(error: unknown) => void} fail shows a failed read (polling stops)
 */

/** @param {PollerOptions} options */
export function createPoller({ intervalMs, forMs, alive, fail }) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  /** @type {(() => Promise<boolean | undefined>) | undefined} */
  let refresh;
  let until = 0;

  function schedule() {
    timer = setTimeout(async () => {
      timer = undefined;
      if (!alive() || !refresh) return;
      let pending = true;
      if (document.visibilityState === 'visible') {
        try {
          pending = Boolean(await refresh());
        } catch (error) {
          if (alive()) fail(error);
          return;
        }
      }
      if (alive() && pending && Date.now() < until) schedule();
    }, intervalMs);
  }

  const poller = {
    /**
     * Registers `fn` (resolves to "still pending?"); polls at once if `active`.
     * @param {() => Promise<boolean | undefined>} fn
     * @param {boolean} active
     */
    poll(fn, active) {
      refresh = fn;
      if (active) poller.start();
    },
    /** Polls (again) for `forMs`. */
    start() {
      until = Date.now() + forMs;
      if (!timer) schedule();
    },
    stop() {
      clearTimeout(timer);
      timer = undefined;
    },
  };
  return poller;
}
