/**
 * `--cpu-prof` for the processes shape (bench/shapes.ts): Node 20 refuses `--cpu-prof` in
 * NODE_OPTIONS, so every node process of the run preloads this file instead (`--require` is allowed
 * there). It starts V8's profiler through `node:inspector` and, on exit, writes the profile as
 * `--cpu-prof` names it (`CPU.<date>.<time>.<pid>.0.001.cpuprofile`) into BENCH_CPU_PROF_DIR.
 * An in-thread inspector session answers synchronously, so the write fits in an 'exit' listener.
 */
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS preloaded with --require, before any loader */
const dir = process.env.BENCH_CPU_PROF_DIR;
if (dir) {
  const fs = require('node:fs');
  const path = require('node:path');
  const inspector = require('node:inspector');
  const session = new inspector.Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 1000 });
  session.post('Profiler.start');
  const pad = (n) => String(n).padStart(2, '0');
  process.on('exit', () => {
    session.post('Profiler.stop', (err, res) => {
      if (err || !res) return;
      const d = new Date();
      const stamp = `${d.getFullYear()}${pad(d.getMonth() + 1)}${pad(d.getDate())}.${pad(d.getHours())}${pad(d.getMinutes())}${pad(d.getSeconds())}`;
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, `CPU.${stamp}.${process.pid}.0.001.cpuprofile`), JSON.stringify(res.profile));
    });
  });
}
