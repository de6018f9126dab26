// Prints the installed folders (relative to the repo root) of the named packages and everything
// they depend on at run time, read from package-lock.json. The Dockerfile tars these before
// `npm prune --omit=dev` and restores them after, so a dev-only tool needed at run time (tsx, which
// runs our TypeScript) survives the prune at exactly the lockfile's versions.
//
//   node deploy/docker/runtime-tools.mjs tsx
import { existsSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';

const names = process.argv.slice(2);
if (names.length === 0) {
  console.error('usage: node runtime-tools.mjs <package> [...]');
  process.exit(2);
}
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
const packages = lock.packages ?? {};

/** Node's lookup: <from>/node_modules/<name>, then each ancestor's node_modules. */
function resolve(from, name) {
  let dir = from;
  for (;;) {
    const candidate = dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`;
    if (packages[candidate] && existsSync(candidate)) return candidate;
    if (!dir) return undefined;
    const idx = dir.lastIndexOf('/node_modules/');
    dir = idx === -1 ? '' : dir.slice(0, idx);
  }
}

const seen = new Set();
const queue = [];
for (const name of names) {
  const found = resolve('', name);
  if (!found) {
    console.error(`runtime-tools: ${name} is not installed`);
    process.exit(1);
  }
  queue.push(found);
}
while (queue.length > 0) {
  const path = queue.shift();
  if (seen.has(path)) continue;
  seen.add(path);
  const entry = packages[path];
  const deps = { ...entry.dependencies, ...entry.optionalDependencies };
  for (const dep of Object.keys(deps)) {
    const found = resolve(path, dep);
    // An optional dependency for another platform is in the lockfile but not on disk: skip it.
    if (found) queue.push(found);
    else if (!entry.optionalDependencies?.[dep]) {
      console.error(`runtime-tools: ${dep} (needed by ${path}) is not installed`);
      process.exit(1);
    }
  }
}
for (const path of [...seen].sort()) console.log(posix.normalize(path));
