/**
 * A worker's sleep that work ends (docs/adr/0070): the code that makes work for a worker (queues a
 * mail, a delivery) calls `signal()` once its transaction committed (`afterCommit`), and the worker,
 * between rounds, waits in `wait(ms)` for that or for its next due time, whichever comes first. A
 * signal that arrives while the worker is busy ends its next wait at once, so no work is missed.
 */
export class WorkSignal {
  private signalled = false;
  private wake: (() => void) | null = null;

  signal(): void {
    this.signalled = true;
    this.wake?.();
  }

  /** Resolves after `ms`, or at the first signal since the previous wait ended (at once if one came meanwhile). */
  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        this.signalled = false;
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      if (this.signalled) return done();
      this.wake = done;
    });
  }
}
