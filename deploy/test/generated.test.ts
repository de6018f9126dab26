// Every file deploy/generate.ts writes (from the event catalog, alerts.yml and the process registry)
// is committed as it would write it now: `npm run generate` when this fails.
import { generatedFiles, LOCAL_PACKAGE_FILE, PROMETHEUS_FILE, staleFiles, START_FUNCTIONS_FILE } from '../generate';

it('every generated file is current', () => {
  expect(staleFiles()).toEqual([]);
});

it('the registry generates what npm start boots and Prometheus scrapes', () => {
  expect(Object.keys(generatedFiles())).toEqual(expect.arrayContaining([START_FUNCTIONS_FILE, LOCAL_PACKAGE_FILE, PROMETHEUS_FILE]));
});
