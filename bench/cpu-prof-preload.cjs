/**
 * `--cpu-prof` for the processes shape: Node 20 refuses `--cpu-prof` in NODE_OPTIONS, so each node
 * process of a run preloads this file instead (`--require` is allowed there) and profiles through
 * `node:inspector` (V8, 1 ms sampling) into BENCH_CPU_PROF_DIR:
 * - by default from start to exit (bench/shapes.ts), written as `--cpu-prof` names it
 *   (`CPU.<date>.<time>.<pid>.0.001.cpuprofile`); an in-thread session answers synchronously, so the
 *   write fits in an 'exit' listener;
 * - with BENCH_CPU_PROF_WINDOW=1 (bench/idle.bench.ts's quiet window), from when a file `start`
 *   appears in the directory until a file `stop` does, written as `<pid>.cpuprofile`; the directory
 *   is watched (inotify), not polled, so an idle process gets no timer from it.
 */
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS preloaded with --require, before any loader */
const dir = process.env.BENCH_CPU_PROF_DIR;
if (dir) {
  const fs = require('node:fs');
  const path = require('node:path');
  const inspector = require('node:inspector');
  const start = () => {
    const session = new inspector.Session();
    session.connect();
    session.post('Profiler.enable');
    session.post('Profiler.setSamplingInterval', { interval: 1000 });
    session.post('Profiler.start');
    return session;
  };
  const stop = (session, file) =>
    session.post('Profiler.stop', (err, res) => {
      if (err || !res) return;
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, file), JSON.stringify(res.profile));
    });
  if (process.env.BENCH_CPU_PROF_WINDOW === '1') {
    let session = null;
    let done = false;
    const watcher = fs.watch(dir, () => {
      if (done) return;
      if (!session && fs.existsSync(path.join(dir, 'start'))) session = start();
      if (session && fs.existsSync(path.join(dir, 'stop'))) {
        done = true;
        watcher.close();
        stop(session, `${process.pid}.cpuprofile`);
      }
    });
    watcher.unref();
  } else {
    const session = start();
    const pad = (n) => String(n).padStart(2, '0');
    process.on('exit', () => {
      const d = new Date();
      const stamp = `${d.getFullYear()}${pad(d.getMonth() + 1)}${pad(d.getDate())}.${pad(d.getHours())}${pad(d.getMinutes())}${pad(d.getSeconds())}`;
      stop(session, `CPU.${stamp}.${process.pid}.0.001.cpuprofile`);
    });
  }
}
