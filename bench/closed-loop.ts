/** A closed-loop load: `concurrency` workers each run `op` again as soon as it answers, for `seconds`. */
export interface ClosedLoopRun {
  ops: number;
  /** Wall-clock seconds the run took. */
  secs: number;
  perSec: number;
  /** This process's CPU seconds (user + system) meanwhile. */
  cpuSecs: number;
}

/** `op(i)` gets each worker's own sequence (w, w + concurrency, …), so workers spread over the data. */
export async function measure(seconds: number, concurrency: number, op: (i: number) => Promise<unknown>): Promise<ClosedLoopRun> {
  const end = Date.now() + seconds * 1000;
  let ops = 0;
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      let i = w;
      while (Date.now() < end) {
        await op(i);
        i += concurrency;
        ops++;
      }
    }),
  );
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  const c = process.cpuUsage(c0);
  return { ops, secs, perSec: ops / secs, cpuSecs: (c.user + c.system) / 1e6 };
}
