/**
 * Function size (issue 33): no function over 80 lines of its own body (nested functions' lines not
 * counted) and none over 150 lines in all, measured with the TypeScript compiler API over the code
 * that runs (services, shared packages, the gateway, the one-process platform; tests and the console
 * not included). Exempt: shared/mongo-embedded's command table, and the known offenders below, which
 * must each still be over a limit: the list can only shrink.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import * as ts from 'typescript';

const ROOT = path.resolve(__dirname, '../..');
const ROOTS = ['services', 'shared', 'gateway/src', 'deploy/local/src'];
const OWN_MAX = 80;
const TOTAL_MAX = 150;

/** shared/mongo-embedded's command table: one entry per MongoDB command it serves, each as long as that command's semantics. */
const EXEMPT_FILES = new Set(['shared/mongo-embedded/src/commands.ts']);

/**
 * Functions still over a limit, by file and name. Remove an entry when its function is split (the
 * test fails while a listed function is within both limits); never add one.
 */
const KNOWN_OFFENDERS: readonly string[] = [];

interface FunctionSize {
  file: string;
  name: string;
  /** Lines of its body, nested functions' bodies not counted. */
  own: number;
  /** Lines of its body. */
  total: number;
}

const isFunction = (n: ts.Node): n is ts.FunctionLikeDeclaration =>
  ts.isFunctionDeclaration(n) ||
  ts.isFunctionExpression(n) ||
  ts.isArrowFunction(n) ||
  ts.isMethodDeclaration(n) ||
  ts.isConstructorDeclaration(n) ||
  ts.isGetAccessor(n) ||
  ts.isSetAccessor(n);

/** Every function of one source text with a body, and its sizes (as /work/notes/fnsize.ts measures them). */
function functionSizes(file: string, text: string): FunctionSize[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line;
  const linesOf = (body: ts.Node) => lineOf(body.getEnd()) - lineOf(body.getStart(sf)) + 1;
  const nameOf = (n: ts.Node): string => {
    const named = (n as { name?: ts.Node }).name;
    if (named) return named.getText(sf);
    const p = n.parent;
    if (p && (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p))) return p.name.getText(sf);
    return '<anonymous>';
  };
  const rows: FunctionSize[] = [];
  const visit = (n: ts.Node) => {
    if (isFunction(n) && n.body) {
      const total = linesOf(n.body);
      let nested = 0;
      const inner = (m: ts.Node) => {
        if (isFunction(m) && m.body) nested += linesOf(m.body);
        else ts.forEachChild(m, inner);
      };
      ts.forEachChild(n.body, inner);
      rows.push({ file, name: nameOf(n), own: total - nested, total });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return rows;
}

const isOversized = (f: FunctionSize) => f.own > OWN_MAX || f.total > TOTAL_MAX;

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name === 'test' || name === 'console') continue;
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) sourceFiles(p, out);
    else if (/\.tsx?$/.test(name) && !/\.(test|d)\.tsx?$/.test(name)) out.push(p);
  }
  return out;
}

/** The oversized functions of the tree, as `<file> <name>` (relative to the repository). */
function oversizedInTree(): { key: string; size: FunctionSize }[] {
  const found: { key: string; size: FunctionSize }[] = [];
  for (const r of ROOTS) {
    for (const abs of sourceFiles(path.join(ROOT, r))) {
      const file = path.relative(ROOT, abs).split(path.sep).join('/');
      if (EXEMPT_FILES.has(file)) continue;
      for (const size of functionSizes(file, readFileSync(abs, 'utf8')).filter(isOversized)) found.push({ key: `${file} ${size.name}`, size });
    }
  }
  return found;
}

describe('the measure', () => {
  const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');

  test('counts a function body, and a nested function only in its total', () => {
    const text = `export function outer() {\n${body(3)}\n  const inner = () => {\n${body(4)}\n  };\n  return inner;\n}\n`;
    const [outer, inner] = functionSizes('x.ts', text);
    expect(inner).toMatchObject({ name: 'inner', own: 6, total: 6 });
    // outer's body: braces (2) + 3 + the inner's 6 lines + return = 12; own = 12 - 6.
    expect(outer).toMatchObject({ name: 'outer', own: 6, total: 12 });
  });

  test('flags a function over 80 own lines, and one over 150 in all made of small nested ones', () => {
    const long = functionSizes('x.ts', `function long() {\n${body(OWN_MAX)}\n}\n`)[0]!;
    expect(long.own).toBe(OWN_MAX + 2);
    expect(isOversized(long)).toBe(true);
    expect(isOversized(functionSizes('x.ts', `function short() {\n${body(OWN_MAX - 2)}\n}\n`)[0]!)).toBe(false);
    const nests = Array.from({ length: 4 }, (_, i) => `  const f${i} = () => {\n${body(40)}\n  };`).join('\n');
    const bag = functionSizes('x.ts', `function bag() {\n${nests}\n}\n`).find((f) => f.name === 'bag')!;
    expect(bag.own).toBeLessThanOrEqual(OWN_MAX);
    expect(bag.total).toBeGreaterThan(TOTAL_MAX);
    expect(isOversized(bag)).toBe(true);
  });

  test('names methods and functions held in properties', () => {
    const names = functionSizes('x.ts', 'const o = { a: () => 1, b() { return 2; }, c: function () { return 3; } };\nclass K { m() { return 4; } }\n').map((f) => f.name);
    expect(names).toEqual(['a', 'b', 'c', 'm']);
  });
});

describe('the tree', () => {
  const found = oversizedInTree();

  test(`no function over ${OWN_MAX} own lines or ${TOTAL_MAX} in all, apart from the known offenders`, () => {
    const known = new Set(KNOWN_OFFENDERS);
    const unexpected = found.filter((f) => !known.has(f.key)).map((f) => `${f.key}: ${f.size.own} own, ${f.size.total} in all`);
    expect(unexpected).toEqual([]);
  });

  test('every known offender is still one (split it, then take it off the list)', () => {
    const still = new Set(found.map((f) => f.key));
    expect(KNOWN_OFFENDERS.filter((k) => !still.has(k))).toEqual([]);
  });
});
