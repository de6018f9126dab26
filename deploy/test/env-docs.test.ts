// The variables tables of docs/configuration.md and .env.example are generated from the processes' zod schemas
// (scripts/env-docs.ts): regenerated here in memory, they must equal the committed files.
import { readFileSync } from 'node:fs';
import { CONFIGURATION_FILE, ENV_EXAMPLE_FILE, envExample, processes, variablesTable, withVariablesTable } from '../../scripts/env-docs';

const list = processes();

it('the tables of docs/configuration.md are generated from the current schemas (run `npm run env-docs` when this fails)', () => {
  const page = readFileSync(CONFIGURATION_FILE, 'utf8');
  expect(withVariablesTable(page, variablesTable(list))).toBe(page);
});

it('.env.example is generated from the current schemas (run `npm run env-docs` when this fails)', () => {
  expect(readFileSync(ENV_EXAMPLE_FILE, 'utf8')).toBe(envExample(list));
});

it('has a section for the gateway, every service with a main.ts and npm start; the servers are required', () => {
  const titles = list.map((p) => p.title);
  expect(titles[0]).toBe('gateway');
  expect(titles).toEqual(expect.arrayContaining(['customers', 'ticketing', 'webhooks']));
  const table = variablesTable(list);
  expect(table).toMatch(/\| `AMQP_URL` \| yes, unless HELPDESK_EMBEDDED=1 \|/);
  expect(table).toMatch(/\| `REDIS_URL` \| yes, unless HELPDESK_EMBEDDED=1 \|/);
  expect(table).toMatch(/\| `MONGO_URL` \| yes \|/);
});
