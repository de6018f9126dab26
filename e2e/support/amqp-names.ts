import amqp from 'amqplib';

/** Removes what a test platform declared on a shared RabbitMQ (its exchanges and each service's queues). */
export async function deleteAmqpNames(url: string, names: { exchange: string; queuePrefix: string }, services: string[]): Promise<void> {
  const conn = await amqp.connect(url);
  try {
    const ch = await conn.createChannel();
    for (const service of services) {
      for (const suffix of ['', '.retry', '.dead']) await ch.deleteQueue(`${names.queuePrefix}.${service}${suffix}`);
    }
    await ch.deleteExchange(names.exchange);
    await ch.deleteExchange(`${names.exchange}.dlx`);
    await ch.close();
  } finally {
    await conn.close();
  }
}
