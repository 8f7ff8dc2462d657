/**
 * The claim loop's sleep, and what ends it early (a NOTIFY, a freed slot, stop). A wake-up that
 * arrives while the loop is not sleeping (it is claiming) is kept: the next sleep returns at once,
 * so a NOTIFY is never lost.
 */
export class Wakeup {
  #wake: (() => void) | undefined;
  #woken = false;

  wake(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    if (wake) wake();
    else this.#woken = true;
  }

  sleep(ms: number): Promise<void> {
    if (this.#woken) {
      this.#woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#wake = undefined;
        resolve();
      }, ms);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
