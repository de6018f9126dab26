/**
 * Summarises a V8 `.cpuprofile` (node --cpu-prof) as its top self-time functions and its self time
 * per package, e.g. `npx tsx bench/profile-summary.ts /tmp/prof/*.cpuprofile [--top 15]`.
 * Several files are added up (the one-process platform writes one; the multi-process shape one per process).
 * Start-up (loading and compiling modules) is left out: samples count from the first HTTP request a
 * process served (`parserOnIncoming` on the stack; a process that serves none counts from its start).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** `node_modules/<pkg>` (scoped included), a workspace folder, `node:` internals, or V8's own entries. */
function packageOf(url: string): string {
  if (!url) return '(v8/native)';
  if (url.startsWith('node:')) return 'node: internals';
  const nm = url.lastIndexOf('node_modules/');
  if (nm !== -1) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const m = /\/((?:shared|services|gateway|deploy|bench)\/[^/]+)\/(?:src|test)\//.exec(url);
  return m ? m[1] : url;
}

export function summarise(files: string[], top = 15): string {
  const selfUs = new Map<string, number>();
  const byPackage = new Map<string, number>();
  let total = 0;
  for (const file of files) {
    const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
    const nodes = new Map(p.nodes.map((n) => [n.id, n]));
    const parent = new Map<number, number>();
    for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const serving = (id: number) => {
      for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) if (nodes.get(cur)!.callFrame.functionName === 'parserOnIncoming') return true;
      return false;
    };
    const first = p.samples.findIndex(serving);
    for (let i = Math.max(first, 0); i < p.samples.length; i++) {
      const node = nodes.get(p.samples[i])!;
      const dt = p.timeDeltas[i] ?? 0;
      const { functionName, url, lineNumber } = node.callFrame;
      if (functionName === '(idle)') continue;
      total += dt;
      const short = url.replace(/^file:\/\//, '').replace(/^.*node_modules\//, '').replace(/^.*?\/(?=(?:shared|services|gateway|deploy|bench)\/)/, '');
      const key = `${functionName || '(anonymous)'}  ${short ? `${short}:${lineNumber + 1}` : ''}`;
      selfUs.set(key, (selfUs.get(key) ?? 0) + dt);
      const pkg = packageOf(url);
      byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + dt);
    }
  }
  const pct = (us: number) => `${((us / total) * 100).toFixed(1)} %`.padStart(7);
  const lines = [`busy CPU ${(total / 1e6).toFixed(2)} s (idle and start-up excluded), ${files.length} profile(s)`, '', `top ${top} self time:`];
  for (const [k, us] of [...selfUs].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`${pct(us)}  ${k}`);
  lines.push('', 'self time by package:');
  for (const [k, us] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`${pct(us)}  ${k}`);
  return lines.join('\n');
}

if (require.main === module) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '15' } } });
  console.log(summarise(positionals, Number(values.top)));
}
