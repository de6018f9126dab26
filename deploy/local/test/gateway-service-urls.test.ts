// `npm run start:processes` hands the gateway each notifications replica's own URL (docs/adr/0075): the
// gateway spreads requests and held streams over them itself, and the launcher's round-robin port
// (the Kubernetes Service's stand-in) stays for the other processes that call such a service.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseServiceUrls } from '@helpdesk/gateway';
import { SERVICES } from '../../registry';
import { gatewayServiceUrls, startBalancer } from '../src/balancer';

it("names a service of several local replicas once per replica, with the replica's own URL; any other by its one URL", () => {
  const value = gatewayServiceUrls(
    ['ticketing', 'notifications', 'customers'],
    (name) => `http://127.0.0.1:${{ ticketing: 4000, notifications: 4100, customers: 4200 }[name]}`,
    (name) => (name === 'notifications' ? ['http://127.0.0.1:4101', 'http://127.0.0.1:4102'] : undefined),
  );
  expect(value).toBe('ticketing=http://127.0.0.1:4000,notifications=http://127.0.0.1:4101,notifications=http://127.0.0.1:4102,customers=http://127.0.0.1:4200');
  // What the gateway reads from it: the replicas, not the round-robin port.
  expect(parseServiceUrls(value)).toEqual({ ticketing: ['http://127.0.0.1:4000'], notifications: ['http://127.0.0.1:4101', 'http://127.0.0.1:4102'], customers: ['http://127.0.0.1:4200'] });
});

it('the registry has a service of several local replicas (what the gateway gets replica URLs for)', () => {
  expect(SERVICES.filter((s) => s.localProcesses > 1).map((s) => s.name)).toContain('notifications');
});

describe('the round-robin port (for the other processes that call such a service)', () => {
  const servers: Server[] = [];
  afterAll(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));
  const named = async (name: string) => {
    const s = createServer((_req, res) => res.end(name));
    servers.push(s);
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    return (s.address() as AddressInfo).port;
  };

  it('hands each new connection to the next replica, past one that refuses', async () => {
    const ports = [await named('one'), 9, await named('two')];
    const balancer = await startBalancer('127.0.0.1', 0, () => ports);
    try {
      const answers: string[] = [];
      // A new connection per request (fetch's keep-alive would reuse one).
      for (let i = 0; i < 4; i++) answers.push(await fetch(`http://127.0.0.1:${balancer.port}/`, { headers: { connection: 'close' } }).then((r) => r.text()));
      expect(answers.sort()).toEqual(['one', 'one', 'two', 'two']);
    } finally {
      await balancer.close();
    }
  });
});
