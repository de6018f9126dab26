#!/usr/bin/env node
/**
 * Builds the console into dist/ when its inputs changed since the last build (or always with --force),
 * so `npm install` (this package's postinstall) and the launchers' first start (gateway/src/console.ts)
 * leave a fresh build behind with no step of their own; nothing built is committed.
 *
 * Fresh means: dist/build.json records the SHA-256 of every input (this folder's sources and config,
 * and the typed client's sources, which are bundled in). `--check` only says: exit 0 fresh, 3 stale.
 * The build goes to a folder of its own and replaces dist/ by a rename, so a gateway serving the old
 * build, or a second build running at the same time (two test workers), never sees half a folder.
 * Each text asset gets .gz and .br siblings, which the gateway sends to browsers that accept them.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'dist');
const STAMP = path.join(DIST, 'build.json');
const INPUTS = ['index.html', 'vite.config.ts', 'package.json', 'tsconfig.json', 'src', 'public', '../../shared/client/src'];
const COMPRESSIBLE = /\.(js|css|html|svg|json|txt|webmanifest)$/;

function files(p) {
  if (!existsSync(p)) return [];
  if (!statSync(p).isDirectory()) return [p];
  return readdirSync(p).sort().flatMap((name) => files(path.join(p, name)));
}

/** The SHA-256 of every input's path and content. */
export function inputsHash() {
  const hash = createHash('sha256');
  for (const input of INPUTS) {
    for (const file of files(path.join(ROOT, input))) {
      hash.update(path.relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
    }
  }
  return hash.digest('hex');
}

function builtHash() {
  try {
    return JSON.parse(readFileSync(STAMP, 'utf8')).inputs;
  } catch {
    return null;
  }
}

async function build(hash) {
  const { build: viteBuild } = await import('vite');
  const out = path.join(ROOT, `.dist-${process.pid}-${Date.now()}`);
  try {
    await viteBuild({ root: ROOT, configFile: path.join(ROOT, 'vite.config.ts'), logLevel: 'warn', build: { outDir: out, emptyOutDir: true } });
    for (const file of files(out)) {
      if (!COMPRESSIBLE.test(file)) continue;
      const body = readFileSync(file);
      writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
      writeFileSync(`${file}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }));
    }
    writeFileSync(path.join(out, 'build.json'), JSON.stringify({ inputs: hash, builtAt: new Date().toISOString() }, null, 2) + '\n');
    // Swap: the old build moves aside, the new one takes its name. Another build that won the race is as good.
    const old = path.join(ROOT, `.dist-old-${process.pid}-${Date.now()}`);
    try {
      renameSync(DIST, old);
    } catch (err) {
      if (err.code !== 'ENOENT') throw err;
    }
    try {
      renameSync(out, DIST);
    } catch (err) {
      if (builtHash() !== hash) throw err;
    }
    rmSync(old, { recursive: true, force: true });
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

async function main() {
  const args = new Set(process.argv.slice(2));
  const hash = inputsHash();
  const fresh = builtHash() === hash;
  if (args.has('--check')) process.exit(fresh ? 0 : 3);
  if (fresh && !args.has('--force')) return;
  let vite = true;
  try {
    await import('vite');
  } catch {
    vite = false;
  }
  if (!vite) {
    // An install without dev dependencies (a production image builds the console in a stage of its own).
    console.warn('@helpdesk/console: vite is not installed; the console is not built (npm install, then npm run build -w @helpdesk/console)');
    return;
  }
  const started = Date.now();
  await build(hash);
  console.log(`@helpdesk/console: built into ${path.relative(process.cwd(), DIST) || 'dist'} in ${Date.now() - started} ms`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error('@helpdesk/console: build failed:', err);
    process.exit(1);
  });
}
