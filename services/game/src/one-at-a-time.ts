/**
 * Work on one key (a partition's boss, a player) queued in this process, one at a time: concurrent
 * transactions on the same document would only make each other retry. Correctness never depends on
 * it (the writes are still conditional, and replicas run their own queues).
 */
const queues = new Map<string, Promise<unknown>>();

export function oneAtATime<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const run = (queues.get(key) ?? Promise.resolve()).then(fn, fn);
  const tail = run.catch(() => {});
  queues.set(key, tail);
  void tail.then(() => {
    if (queues.get(key) === tail) queues.delete(key);
  });
  return run;
}
