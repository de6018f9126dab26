import { connect, createServer, type Server, type Socket } from 'node:net';

export interface Balancer {
  port: number;
  close(): Promise<void>;
}

/**
 * What a Kubernetes Service is to a Deployment of several replicas, on one machine: a TCP port that
 * hands each new connection to the next replica in turn (connection-level, as kube-proxy does), and
 * to the following one when a replica refuses the connection (stopped, restarting).
 */
export async function startBalancer(host: string, port: number, targets: () => number[]): Promise<Balancer> {
  let next = 0;
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  const server: Server = createServer((client) => {
    track(client);
    client.pause();
    const ports = targets();
    const tryTarget = (tries: number) => {
      if (tries >= ports.length) return client.destroy();
      const target = ports[next++ % ports.length]!;
      const upstream = connect(target, host);
      let connected = false;
      upstream.once('connect', () => {
        connected = true;
        track(upstream);
        client.pipe(upstream).pipe(client);
        client.resume();
      });
      upstream.once('error', () => {
        if (connected) return client.destroy();
        tryTarget(tries + 1);
      });
    };
    tryTarget(0);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * The gateway's SERVICE_URLS on one machine (docs/adr/0075): a service of several local replicas is
 * named once per replica with that replica's own URL (the gateway spreads requests and held streams
 * over them itself, so the round-robin port relays no byte of them), any other by its one URL.
 */
export function gatewayServiceUrls(services: readonly string[], url: (service: string) => string, replicaUrls: (service: string) => readonly string[] | undefined): string {
  return services.flatMap((name) => (replicaUrls(name)?.length ? replicaUrls(name)! : [url(name)]).map((u) => `${name}=${u}`)).join(',');
}
