import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '../../..');

// openapi-typescript loads ESM-only packages, which jest on Node 20 cannot require: the check runs in tsx.
it('src/schema.d.ts is what `npm run openapi` generates from the committed docs/openapi.json', () => {
  const run = spawnSync(process.execPath, [require.resolve('tsx/cli'), 'scripts/openapi.ts', '--check-types'], { cwd: root, encoding: 'utf8' });
  expect({ status: run.status, stderr: run.stderr.trim() }).toEqual({ status: 0, stderr: '' });
});
