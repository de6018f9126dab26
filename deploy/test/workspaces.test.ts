/**
 * The dependency rules between workspaces, checked on the tree: every workspace declares what its
 * code and tests import; no file reaches into another workspace by a relative path (its `test/`
 * folder least of all); shared packages depend on no service, the gateway or deploy/local.
 */
import { builtinModules } from 'node:module';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const rootPkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

interface Workspace {
  dir: string;
  name: string;
  declared: Set<string>;
}

function workspaces(): Workspace[] {
  const dirs: string[] = [];
  for (const pattern of rootPkg.workspaces as string[]) {
    if (pattern.endsWith('/*')) {
      const parent = path.join(ROOT, pattern.slice(0, -2));
      for (const d of readdirSync(parent)) if (statSync(path.join(parent, d)).isDirectory()) dirs.push(path.join(parent, d));
    } else dirs.push(path.join(ROOT, pattern));
  }
  return dirs.map((dir) => {
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
    return { dir, name: pkg.name, declared: new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})]) };
  });
}

/** A workspace's TypeScript files, without those of a workspace nested in its folder (gateway/console in gateway). */
function sourceFiles(dir: string, top = dir): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'data' || entry.name === 'dist') continue;
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (p !== top && nestedDirs.has(p)) continue;
      out.push(...sourceFiles(p, top));
    } else if (/\.(ts|tsx|mts|cts)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

const IMPORT_RE = /(?:from\s+|import\s*\(\s*|require\(\s*|import\s+)'([^'\s]+)'/g;
const packageOf = (spec: string) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
const BUILTINS = new Set(builtinModules);
/** Types and tools jest and tsc provide to every workspace from the root. */
const FROM_ROOT = new Set(['@jest/globals']);

const all = workspaces();
const nestedDirs = new Set(all.map((w) => w.dir));
/** The innermost workspace holding `file`. */
const owner = (file: string) =>
  all.filter((w) => file.startsWith(w.dir + path.sep)).sort((a, b) => b.dir.length - a.dir.length)[0];

describe.each(all.map((w) => [w.name, w] as const))('%s', (_name, ws) => {
  const files = sourceFiles(ws.dir);
  const imports = files.flatMap((file) => [...readFileSync(file, 'utf8').matchAll(IMPORT_RE)].map((m) => ({ file: path.relative(ROOT, file), spec: m[1] })));

  it('declares every package its code and tests import', () => {
    const undeclared = imports
      .filter(({ spec }) => !spec.startsWith('.') && !spec.startsWith('node:') && !BUILTINS.has(spec))
      .filter(({ spec }) => packageOf(spec) !== ws.name && !ws.declared.has(packageOf(spec)) && !FROM_ROOT.has(packageOf(spec)))
      .map(({ file, spec }) => `${file}: ${spec}`);
    expect(undeclared).toEqual([]);
  });

  it("reaches no other workspace by a relative path, and no workspace's test/ folder", () => {
    const crossing = imports
      .filter(({ spec }) => spec.startsWith('.'))
      .filter(({ file, spec }) => {
        const target = path.resolve(ROOT, path.dirname(file), spec);
        const other = owner(target + '.ts') ?? owner(target + path.sep + 'index.ts') ?? owner(target);
        return other !== undefined && other !== ws;
      })
      .map(({ file, spec }) => `${file}: ${spec}`);
    expect(crossing).toEqual([]);
    expect(imports.filter(({ spec }) => /^@helpdesk\/[^/]+\/(src|test)\//.test(spec) && spec.includes('/test/')).map((i) => `${i.file}: ${i.spec}`)).toEqual([]);
  });

  if (ws.dir.startsWith(path.join(ROOT, 'shared') + path.sep)) {
    it('as a shared package, depends on no service, the gateway or deploy/local', () => {
      const services = readdirSync(path.join(ROOT, 'services')).map((s) => `@helpdesk/${s}`);
      const forbidden = new Set([...services, '@helpdesk/gateway', '@helpdesk/local', '@helpdesk/e2e']);
      expect([...ws.declared].filter((d) => forbidden.has(d))).toEqual([]);
      expect(imports.filter(({ spec }) => forbidden.has(packageOf(spec))).map((i) => `${i.file}: ${i.spec}`)).toEqual([]);
    });
  }
});
