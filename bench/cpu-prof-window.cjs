/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS preload (NODE_OPTIONS --require) */
/**
 * Preloaded (`NODE_OPTIONS=--require bench/cpu-prof-window.cjs`) into each node process of a run by
 * bench/idle.bench.ts: Node 20 refuses `--cpu-prof` in NODE_OPTIONS, and an idle window is what to
 * profile anyway. With CPU_PROF_WINDOW_DIR set, the process profiles (V8, 1 ms sampling) from when a
 * file `start` appears in that directory until a file `stop` does, and writes `<pid>.cpuprofile` there.
 * The directory is watched (inotify), not polled, so the idle process gets no timer from it.
 */
const fs = require('node:fs');
const path = require('node:path');
const inspector = require('node:inspector');

const dir = process.env.CPU_PROF_WINDOW_DIR;
if (dir) {
  let session = null;
  let done = false;
  const watcher = fs.watch(dir, () => {
    if (done) return;
    if (!session && fs.existsSync(path.join(dir, 'start'))) {
      session = new inspector.Session();
      session.connect();
      session.post('Profiler.enable');
      session.post('Profiler.setSamplingInterval', { interval: 1000 });
      session.post('Profiler.start');
    }
    if (session && fs.existsSync(path.join(dir, 'stop'))) {
      done = true;
      watcher.close();
      session.post('Profiler.stop', (err, res) => {
        if (!err) fs.writeFileSync(path.join(dir, `${process.pid}.cpuprofile`), JSON.stringify(res.profile));
        session.disconnect();
      });
    }
  });
  watcher.unref();
}
