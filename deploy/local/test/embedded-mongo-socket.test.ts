import { existsSync, lstatSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { createLogger } from '@helpdesk/kit';
import { bootPlatform } from '../src/platform';
import { cleanup, localEnv, nodeStart, tempDir, waitFor } from './processes';

// docs/adr/0048: in the one-process platform the services reach the embedded MongoDB through its Unix
// domain socket's URL, served in process; operators keep the TCP URL (printed, in credentials.json,
// Platform.mongoUrl). The socket file lives in DATA_DIR/mongo, goes at stop, and one left by a crash
// does not get in the way of the next start.
afterAll(cleanup);

test('the services use the in-process connection; Platform.mongoUrl is the TCP URL, which still works', async () => {
  const dataDir = tempDir('helpdesk-local-sock-');
  const platform = await bootPlatform({ port: 0, dataDir, embeddedMongoPort: 0, internalTokenSecret: 'x'.repeat(32), logger: createLogger('test', 'silent') });
  const mongo = platform.embeddedMongo!;
  try {
    expect(mongo.socketPath).toBe(path.join(dataDir, 'mongo', 'mongod.sock'));
    expect(platform.mongoUrl).toBe(mongo.uri());
    expect(platform.mongoUrl).toMatch(/^mongodb:\/\/127\.0\.0\.1:\d+\//);

    const team = await platform.gateway.admin.createTeam({ name: 'Socket Co' });
    const key = (await platform.gateway.admin.createKey({ teamId: team.id, type: 'secret', mode: 'test' })).key;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const created = await fetch(`${platform.baseUrl}/teams/${team.id}/tickets`, { method: 'POST', headers, body: JSON.stringify({ title: 'Over the in-process connection', messages: [{ sender: 'customer', content: 'hi' }] }) });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { data: { id: string } }).data.id;
    expect((await fetch(`${platform.baseUrl}/teams/${team.id}/tickets/${id}`, { headers })).status).toBe(200);

    const counts = mongo.connectionsByTransport();
    expect(counts.memory).toBeGreaterThan(0);
    expect(counts).toMatchObject({ tcp: 0, unix: 0 });
    // And their commands are handed over as objects (docs/adr/0052): the wire carries each
    // connection's handshake and the monitors' streaming hellos, not the services' commands.
    const commands = mongo.inProcessCommands();
    expect(commands.direct).toBeGreaterThan(commands.wire);
    expect(commands.wire).toBeLessThanOrEqual(2 * counts.memory);

    // Tools connect over TCP as before.
    const tool = await MongoClient.connect(platform.mongoUrl, { serverSelectionTimeoutMS: 5000 });
    try {
      expect(await tool.db('ticketing').collection('tickets').countDocuments({})).toBe(1);
    } finally {
      await tool.close();
    }
    expect(mongo.connectionsByTransport().tcp).toBeGreaterThan(0);
  } finally {
    await platform.stop();
  }
  expect(existsSync(path.join(dataDir, 'mongo', 'mongod.sock'))).toBe(false);
}, 90_000);

test('npm start after a crash (SIGKILL) replaces the stale socket file; SIGTERM removes it', async () => {
  const dataDir = tempDir('helpdesk-local-crash-');
  const socket = path.join(dataDir, 'mongo', 'mongod.sock');
  const first = await nodeStart(localEnv(dataDir));
  expect(lstatSync(socket).isSocket()).toBe(true);
  first.child.kill('SIGKILL');
  await first.exited;
  expect(lstatSync(socket).isSocket()).toBe(true); // left behind

  const second = await nodeStart(localEnv(dataDir));
  expect(second.output()).toMatch(/MongoDB\s+mongodb:\/\/127\.0\.0\.1:\d+\//);
  expect(second.output()).not.toContain('no Unix domain socket');
  const creds = JSON.parse(readFileSync(path.join(dataDir, 'credentials.json'), 'utf8'));
  expect(creds.mongoUrl).toMatch(/^mongodb:\/\/127\.0\.0\.1:\d+\//);
  const who = await fetch(`${second.baseUrl}/auth/whoami`, { headers: { authorization: `Bearer ${creds.keys.sk_test}` } });
  expect(who.status).toBe(200);

  second.child.kill('SIGTERM');
  expect(await second.exited).toEqual({ code: 0, signal: null });
  await waitFor('the socket file to be removed', () => !existsSync(socket), 5000);
}, 120_000);
