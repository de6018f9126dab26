/**
 * One way to reach a team's data (docs/adr/0065): eslint.config.mjs refuses, under services/*\/src,
 * every way around kit's data layer. Each sample below is code a service could write; the rule must
 * fire on it (and stay quiet on the same access written through the layer).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
/** A rules file of a service (the rule applies to every services/*\/src file but model files). */
const RULES_FILE = 'services/ticketing/src/tickets/example-rules.ts';
const MODEL_FILE = 'services/ticketing/src/tickets/model.ts';

/**
 * Lints samples as files of the repository with its eslint.config.mjs, in one node process (jest's
 * module system cannot load the ES module config itself): the data-access messages of each.
 */
function lintAll(samples: { code: string; filePath: string }[]): string[][] {
  const script = `
    const { ESLint } = require('eslint');
    const samples = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
    (async () => {
      const eslint = new ESLint({ cwd: process.cwd() });
      const out = [];
      for (const s of samples) {
        const [r] = await eslint.lintText(s.code, { filePath: s.filePath });
        out.push(r.messages.filter((m) => m.ruleId === 'no-restricted-syntax' || m.ruleId === 'no-restricted-imports').map((m) => m.message));
      }
      process.stdout.write(JSON.stringify(out));
    })();`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: ROOT, input: JSON.stringify(samples), encoding: 'utf8' }));
}

const offending: [string, string][] = [
  ['a hand-written scope in a filter', `db.tickets.findOne({ _id: id, teamId: ctx.teamId, mode: ctx.mode });`],
  ['a hand-written scope in a driver fast path', `db.tickets.leanFind({ teamId: scope.teamId, status: 'open' });`],
  ['a hand-written scope in a pipeline', `db.facts.aggregate([{ $match: { teamId: scope.teamId, mode: scope.mode, createdAt: { $gte: start } } }]);`],
  ['a hand-written scope in a bulk operation', `db.rules.bulkWrite(ids.map((_id) => ({ updateOne: { filter: { _id, teamId: s.teamId }, update: {} } })));`],
  ["a model's driver collection", `models.tickets.collection.find({ slaNextDueAt: { $lte: now } });`],
  ['the connection\'s models', `conn.models.Ticket.find({});`],
  ['the connection\'s database', `conn.db.collection('tickets').find({});`],
  ['a model built outside its model file', `ticketModel(conn).find({});`],
  ['the driver collection helper', `import { collectionOf } from '@helpdesk/kit';\ncollectionOf(x).find({});`],
  ["mongoose's own model registry", `import mongoose from 'mongoose';\nmongoose.model('Ticket').find({});`],
  ['the driver package', `import { MongoClient } from 'mongodb';\nvoid MongoClient;`],
];

const through = [
  `import { acrossTeams, bulkWriteInScopes, scoped } from '@helpdesk/kit';`,
  `const db = scoped(models, ctx);`,
  `db.tickets.findOne({ _id: id });`,
  `db.tickets.leanFind({ status: 'open' }, { projection: { teamId: 0, mode: 0 } });`,
  `db.facts.aggregate([{ $match: { createdAt: { $gte: start } } }]);`,
  `bulkWriteInScopes(models.facts, [{ scope, updateOne: { filter: { _id }, update: {} } }]);`,
  `acrossTeams(models).tickets.find({ slaNextDueAt: { $lte: now } });`,
  // a scope is still written where it is not a filter: an event's or a token's
  `emit({ teamId: ctx.teamId, mode: ctx.mode });`,
].join('\n');

const modelFile = `const m = conn.model('Ticket', schema);\nexport const ticketModel = (c) => c.models.Ticket ?? m;\nexport const x = () => ticketModel(conn);`;

describe('eslint refuses a way around the data layer under services/*/src', () => {
  let messages: string[][];
  beforeAll(() => {
    messages = lintAll([
      ...offending.map(([, code]) => ({ code, filePath: RULES_FILE })),
      { code: through, filePath: RULES_FILE },
      { code: modelFile, filePath: MODEL_FILE },
    ]);
  }, 60_000);

  it.each(offending.map(([what], i) => [what, i] as const))('%s', (_what, i) => {
    expect(messages[i]!.length).toBeGreaterThan(0);
    for (const m of messages[i]!) expect(m).toContain('docs/adr/0065');
  });

  it('and lets the same reads and writes through the layer pass', () => {
    expect(messages[offending.length]).toEqual([]);
  });

  it('a model file builds its model', () => {
    expect(messages[offending.length + 1]).toEqual([]);
  });
});
