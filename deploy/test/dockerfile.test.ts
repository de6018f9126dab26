// deploy/docker/Dockerfile and .dockerignore: a minimal lint (no Docker engine here to build with).
import { spawnSync } from 'node:child_process';
import { DOCKERFILE, ENTRY, ROOT, RUN_AS, isPinnedImage, read } from './helpers';

interface Instruction {
  keyword: string;
  args: string;
}

/** Instructions with continuation lines joined and comments dropped. */
function instructions(text: string): Instruction[] {
  const out: Instruction[] = [];
  let current = '';
  for (const line of text.split('\n')) {
    if (/^\s*#/.test(line)) continue;
    current += line.replace(/\\\s*$/, ' ');
    if (/\\\s*$/.test(line)) continue;
    const trimmed = current.trim();
    current = '';
    if (!trimmed) continue;
    const m = /^(\S+)\s+(.*)$/.exec(trimmed);
    if (m) out.push({ keyword: m[1].toUpperCase(), args: m[2].trim() });
  }
  return out;
}

const dockerfile = read(DOCKERFILE);
const all = instructions(dockerfile);
const lastFrom = all.map((i) => i.keyword).lastIndexOf('FROM');
const finalStage = all.slice(lastFrom);
/** ARG defaults declared before the first FROM (the only ones a FROM line can use). */
const globalArgs: Record<string, string> = {};
for (const i of all.slice(0, all.findIndex((x) => x.keyword === 'FROM'))) {
  const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(i.args);
  if (i.keyword === 'ARG' && m) globalArgs[m[1]] = m[2];
}

describe('deploy/docker/Dockerfile', () => {
  it('is multi-stage on a pinned node 20 bookworm-slim base (no `latest`)', () => {
    const froms = all.filter((i) => i.keyword === 'FROM');
    expect(froms.length).toBeGreaterThanOrEqual(2);
    const stages = new Set<string>();
    for (const from of froms) {
      const [ref, as, stage] = from.args.split(/\s+/);
      const image = ref.replace(/^\$\{?([A-Za-z_]+)\}?$/, (_m, name: string) => globalArgs[name] ?? '');
      if (!stages.has(image)) {
        expect(isPinnedImage(image)).toBe(true);
        expect(image).toMatch(/^node:20(\.[0-9]+)*-bookworm-slim(@sha256:[0-9a-f]+)?$/);
      }
      if (as?.toUpperCase() === 'AS') stages.add(stage);
    }
    expect(dockerfile).not.toMatch(/:latest\b/);
  });

  it('installs from the lockfile, prunes dev dependencies and keeps tsx', () => {
    const runs = all.filter((i) => i.keyword === 'RUN').map((i) => i.args).join('\n');
    expect(runs).toMatch(/\bnpm ci\b/);
    expect(runs).not.toMatch(/\bnpm (install|i)\b/);
    expect(runs).toMatch(/npm prune --omit=dev/);
    expect(runs).toMatch(/runtime-tools\.mjs tsx/);
    expect(runs).toMatch(/node --require tsx\/cjs/);
    // The final stage takes the whole install (workspaces may get nested node_modules), then the
    // sources, then the agent console's build (made in its own stage: Vite is a dev dependency).
    const copies = finalStage.filter((i) => i.keyword === 'COPY').map((i) => i.args);
    expect(copies).toEqual(['--from=deps /app ./', '. .', '--from=console /src/gateway/console/dist gateway/console/dist']);
    const consoleStage = all.slice(all.findIndex((i) => i.keyword === 'FROM' && / AS console$/i.test(i.args)), lastFrom);
    expect(consoleStage.filter((i) => i.keyword === 'RUN').map((i) => i.args).join('\n')).toMatch(/gateway\/console\/scripts\/build\.mjs/);
  });

  it('runs as the non-root user 10001 in the final stage', () => {
    const users = finalStage.filter((i) => i.keyword === 'USER');
    expect(users.length).toBeGreaterThan(0);
    const user = users[users.length - 1].args;
    expect(user).toBe(`${RUN_AS}:${RUN_AS}`);
    // Nothing after USER switches back to root.
    const afterUser = finalStage.slice(finalStage.lastIndexOf(users[users.length - 1]) + 1);
    expect(afterUser.filter((i) => i.keyword === 'USER')).toEqual([]);
  });

  it('starts `node` with tsx and the telemetry preload, then the entry, in exec form, the gateway by default', () => {
    const entrypoint = finalStage.filter((i) => i.keyword === 'ENTRYPOINT').pop();
    const cmd = finalStage.filter((i) => i.keyword === 'CMD').pop();
    expect(JSON.parse(entrypoint!.args)).toEqual(['node', '--require', 'tsx/cjs', '--require', './shared/kit/src/telemetry/register.ts']);
    const args: string[] = JSON.parse(cmd!.args);
    expect(args).toEqual(['gateway/src/main.ts']);
    expect(args[0]).toMatch(ENTRY);
  });

  it('puts no secret in the image', () => {
    for (const i of all.filter((x) => x.keyword === 'ENV' || x.keyword === 'ARG')) {
      expect(i.args).not.toMatch(/SECRET|PASSWORD|TOKEN|_URL=/);
    }
    expect(finalStage.some((i) => i.keyword === 'ENV' && /NODE_ENV=production/.test(i.args))).toBe(true);
  });

  it('keeps tsx and only its run-time closure through the prune (runtime-tools.mjs)', () => {
    const out = spawnSync(process.execPath, ['deploy/docker/runtime-tools.mjs', 'tsx'], { cwd: ROOT, encoding: 'utf8' });
    expect(out.status).toBe(0);
    const paths = out.stdout.trim().split('\n');
    expect(paths).toContain('node_modules/tsx');
    expect(paths).toContain('node_modules/esbuild');
    for (const p of paths) expect(p).toMatch(/^node_modules\//);
    expect(paths.length).toBeLessThan(10);
  });
});

describe('.dockerignore', () => {
  const lines = read('.dockerignore')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));

  it('keeps node_modules, data, .git and .env out of the build context', () => {
    expect(lines).toEqual(expect.arrayContaining(['**/node_modules', 'data', '**/data', '.git', '.env']));
  });

  /** Docker's matching, simplified: `**` spans folders, `*` one name; a match on a folder excludes its content. */
  const ignored = (path: string): boolean => {
    let result = false;
    for (const line of lines) {
      const negate = line.startsWith('!');
      const pattern = negate ? line.slice(1) : line;
      const source = pattern
        .split('**/')
        .map((part) => part.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]'))
        .join('(?:.*/)?');
      if (new RegExp(`^${source}(?:/.*)?$`).test(path)) result = !negate;
    }
    return result;
  };

  it('keeps what the build needs in it, and leaves tests and local data out', () => {
    const needed = [
      'package.json',
      'package-lock.json',
      '.npmrc',
      'tsconfig.json',
      'tsconfig.base.json',
      'deploy/docker/runtime-tools.mjs',
      'shared/kit/src/index.ts',
      'shared/kit/package.json',
      'gateway/src/main.ts',
      'services/ticketing/src/main.ts',
      'deploy/local/package.json',
    ];
    for (const path of needed) expect([path, ignored(path)]).toEqual([path, false]);
    const left = ['node_modules/tsx/package.json', 'shared/kit/node_modules/x', 'data/mongo/x', '.git/HEAD', '.env', 'gateway/test/a.test.ts', 'deploy/k8s/base/gateway.yaml'];
    for (const path of left) expect([path, ignored(path)]).toEqual([path, true]);
    expect(ignored('.env.example')).toBe(false);
  });
});
