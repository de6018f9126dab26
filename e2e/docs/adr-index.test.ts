/**
 * docs/adr/README.md indexes every decision record with its status, and each record's own `Status:`
 * line says the same: amended or superseded records name the later ones, which exist.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const dir = path.resolve(__dirname, '../../docs/adr');
const records = readdirSync(dir).filter((f) => /^\d{4}-.+\.md$/.test(f)).sort();
const index = readFileSync(path.join(dir, 'README.md'), 'utf8');
/** The index's rows: number → [file, status]. */
const rows = new Map(
  [...index.matchAll(/^\| \[(\d{4})\]\(([^)]+)\) \| .+ \| (.+) \|$/gm)].map((m) => [m[1], { file: m[2], status: m[3] }] as const),
);
/** The `Status:` line of a record, without the pointer every performance record adds. */
const statusOf = (file: string) => {
  const line = readFileSync(path.join(dir, file), 'utf8').split('\n').slice(0, 6).find((l) => l.startsWith('Status: '));
  return line?.slice('Status: '.length).replace(/\. Current design and figures: .*$/, '').replace(/\.$/, '');
};

it('lists every record once, under its own number and file', () => {
  expect([...rows.keys()]).toEqual(records.map((f) => f.slice(0, 4)));
  for (const f of records) expect(rows.get(f.slice(0, 4))!.file).toBe(f);
});

it("says what each record's Status line says, and every record it names exists", () => {
  for (const f of records) {
    const row = rows.get(f.slice(0, 4))!;
    expect({ file: f, status: statusOf(f) }).toEqual({ file: f, status: row.status.replace('; figures in [performance.md](../performance.md)', '') });
    for (const [, n] of row.status.matchAll(/\b(\d{4})\b/g)) expect({ file: f, names: n, exists: rows.has(n) }).toEqual({ file: f, names: n, exists: true });
  }
});
