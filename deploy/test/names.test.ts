/**
 * One name for the test/live concept (issue 33, docs/adr/0074): it is the partition, `Partition`,
 * `PARTITIONS` and `partitionSchema` in @helpdesk/contracts (shared/contracts/src/partition.ts).
 * Nowhere else may the two values be written out as a type (`'test' | 'live'`), a zod enum or a list
 * (`['test', 'live']`), and no type may name the concept Mode, KeyMode, Environment or World again.
 * Read with the TypeScript compiler API over every package's code and tests (the generated client
 * schema excepted: it is written from the OpenAPI document).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import * as ts from 'typescript';

const ROOT = path.resolve(__dirname, '../..');
const ROOTS = ['services', 'shared', 'gateway', 'deploy', 'e2e', 'bench', 'scripts'];
const HOME = 'shared/contracts/src/partition.ts';
const GENERATED = new Set(['shared/client/src/schema.d.ts']);
const OLD_TYPE_NAMES = new Set(['Mode', 'KeyMode', 'Environment', 'World']);
const VALUES = 'live test'.split(' ');

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) sourceFiles(full, out);
    else if (/\.tsx?$/.test(name)) out.push(full);
  }
  return out;
}

/** The literal strings of a union type or an array, or null when any member is not a string literal. */
function literals(members: readonly ts.Node[]): string[] | null {
  const values: string[] = [];
  for (const m of members) {
    const lit = ts.isLiteralTypeNode(m) ? m.literal : m;
    if (!ts.isStringLiteral(lit)) return null;
    values.push(lit.text);
  }
  return values.sort();
}
const isBothPartitions = (values: string[] | null) => values !== null && values.length === 2 && values.every((v, i) => v === VALUES[i]);

/** Every place a file writes the partition's values out, or names a type after an old word. */
export function partitionCopies(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: string[] = [];
  const at = (n: ts.Node) => `${file}:${source.getLineAndCharacterOfPosition(n.getStart()).line + 1}`;
  const visit = (n: ts.Node) => {
    if (ts.isUnionTypeNode(n) && isBothPartitions(literals(n.types))) found.push(`${at(n)} ${n.getText()}`);
    if (ts.isArrayLiteralExpression(n) && isBothPartitions(literals(n.elements))) found.push(`${at(n)} ${n.getText()}`);
    if ((ts.isTypeAliasDeclaration(n) || ts.isInterfaceDeclaration(n)) && OLD_TYPE_NAMES.has(n.name.text)) found.push(`${at(n)} type ${n.name.text}`);
    ts.forEachChild(n, visit);
  };
  visit(source);
  return found;
}

describe('one name for the partition', () => {
  it('finds a written-out copy (the check can fail)', () => {
    expect(partitionCopies('x.ts', `let a: 'live' | 'test'; const b = z.enum(['test', 'live']); type Mode = string;`)).toHaveLength(3);
    expect(partitionCopies('x.ts', `let a: Partition; const b = partitionSchema; let c: 'test' | 'live' | 'other';`)).toEqual([]);
  });

  it('writes the values out only in shared/contracts/src/partition.ts', () => {
    const files = ROOTS.flatMap((r) => sourceFiles(path.join(ROOT, r)))
      .map((f) => path.relative(ROOT, f).split(path.sep).join('/'))
      .filter((f) => f !== HOME && !GENERATED.has(f));
    expect(files.length).toBeGreaterThan(500);
    const copies = files.flatMap((f) => partitionCopies(f, readFileSync(path.join(ROOT, f), 'utf8')));
    expect(copies).toEqual([]);
  });
});
