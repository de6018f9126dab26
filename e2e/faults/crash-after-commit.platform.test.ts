import { randomBytes } from 'node:crypto';
import { deleteAmqpNames, runProcesses, type RunningProcesses } from '@helpdesk/local';

/**
 * A crash between commit and reply is not a second write (docs/adr/0062). `npm run start:processes`
 * runs with the failpoint `HELPDESK_FAILPOINT=exit-after-commit:createTicket`: ticketing SIGKILLs
 * itself right after a keyed ticket create commits, before it answers. The client gets the gateway's
 * 503 (the key released), retries with the same key as it should while the launcher restarts
 * ticketing, and gets the ticket the first attempt committed: one ticket, its id, and the same answer
 * on every later retry. Infra pass only (RabbitMQ and Redis); everything it starts it stops.
 */
const AMQP_URL = process.env.AMQP_URL;
const REDIS_URL = process.env.REDIS_URL;
const run = AMQP_URL && REDIS_URL ? describe : describe.skip;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

run('a ticket create whose service dies after its commit, retried with its Idempotency-Key', () => {
  const tag = `cac${randomBytes(4).toString('hex')}`;
  let platform: RunningProcesses;
  beforeAll(async () => {
    platform = await runProcesses(
      {
        PATH: process.env.PATH,
        PORT: '0',
        EMBEDDED_MONGO_PORT: '0',
        INBOUND_SMTP_PORT: '0',
        INBOUND_HTTP_PORT: '0',
        AMQP_URL,
        REDIS_URL,
        AMQP_EXCHANGE: `${tag}.events`,
        AMQP_QUEUE_PREFIX: tag,
        REDIS_KEY_PREFIX: `${tag}:`,
        INTERNAL_TOKEN_SECRET: randomBytes(24).toString('hex'),
        LOG_LEVEL: 'warn',
        HELPDESK_FAILPOINT: 'exit-after-commit:createTicket',
      },
      { timeoutMs: 180_000 },
    );
  }, 200_000);
  afterAll(async () => {
    await platform?.stop();
    await deleteAmqpNames(AMQP_URL!, { exchange: `${tag}.events`, queuePrefix: tag }).catch(() => undefined);
  }, 60_000);

  const create = (key: string, title: string) =>
    fetch(`${platform.baseUrl}/teams/${platform.credentials.teamId}/tickets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${platform.credentials.keys.sk_test}`, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ title, messages: [{ content: 'it broke', sender: 'customer' }] }),
      signal: AbortSignal.timeout(20_000),
    });

  test('the retry answers the committed ticket, and there is one', async () => {
    const ticketing = () => platform.processes().processes.find((p) => p.name === 'ticketing')!;
    const before = ticketing().pid;
    const key = `crash-${tag}`;
    const title = `crash after commit ${tag}`;

    const first = await create(key, title);
    // The service died after committing: the gateway's 503, its key released for the retry.
    expect(first.status).toBe(503);
    expect(((await first.json()) as { error: { code: string } }).error.code).toBe('service_unavailable');

    // Retried with the key, as a careful client does, while the launcher restarts ticketing (bounded).
    let answer: { status: number; body: { data: { id: string; title: string } } } | null = null;
    for (const end = Date.now() + 90_000; Date.now() < end; await sleep(500)) {
      const res = await create(key, title).catch(() => null);
      if (!res) continue;
      const body = (await res.json()) as { data: { id: string; title: string } };
      if (res.status === 201) {
        answer = { status: res.status, body };
        break;
      }
      expect(res.status).toBe(503);
    }
    expect(ticketing().pid).not.toBe(before);
    expect(ticketing().restarts).toBeGreaterThanOrEqual(1);
    expect(answer?.body.data.title).toBe(title);

    const list = await fetch(`${platform.baseUrl}/teams/${platform.credentials.teamId}/tickets?pageSize=100`, {
      headers: { authorization: `Bearer ${platform.credentials.keys.sk_test}` },
    });
    const tickets = ((await list.json()) as { data: Array<{ id: string; title: string }> }).data.filter((t) => t.title === title);
    expect(tickets.map((t) => t.id)).toEqual([answer!.body.data.id]);

    const again = await create(key, title);
    expect(again.status).toBe(201);
    expect(((await again.json()) as { data: { id: string } }).data.id).toBe(answer!.body.data.id);
  }, 150_000);
});
