/** Runs after-commit callbacks; one that throws does not undo the commit or stop the others. */
export function runAfterCommit(callbacks: readonly (() => void)[]): void {
  for (const callback of callbacks) {
    try {
      callback();
    } catch {
      // committed already: a hint that failed is not the transaction's failure
    }
  }
}
