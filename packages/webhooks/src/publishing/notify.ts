import type { Sql } from '@surety/db';

/**
 * Wakes the workers (NOTIFY on the channel) after a commit that created deliveries. One NOTIFY at
 * a time per process: wake-ups that arrive while one is in flight are folded into a single
 * follow-up, sent after it, so a commit is always followed by a NOTIFY that started after it
 * (no wake-up lost), and a thousand commits a second cost a few NOTIFYs, not a thousand.
 */
export class CommitNotifier {
  readonly #sql: Sql;
  readonly #channel: string;
  #notifying = false;
  #again = false;

  constructor(sql: Sql, channel: string) {
    this.#sql = sql;
    this.#channel = channel;
  }

  readonly wake = (): void => {
    if (this.#notifying) {
      this.#again = true;
      return;
    }
    this.#notifying = true;
    this.#sql
      .notify(this.#channel)
      .catch(() => {
        // A wake-up is a hint: the workers' poll finds the deliveries anyway.
      })
      .finally(() => {
        this.#notifying = false;
        if (this.#again) {
          this.#again = false;
          this.wake();
        }
      });
  };
}
