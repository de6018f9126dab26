import type mongoose from 'mongoose';

/** A MongoDB URL with the driver's command monitoring on, so `commandsSent` sees what a connection sends. */
export const withCommandMonitoring = (url: string): string => `${url}${url.includes('?') ? '&' : '?'}monitorCommands=true`;

/**
 * The commands `conn` sends while `fn` runs, in order, each as `<command> <collection>` (or the command's
 * name alone when it names no collection): how a test counts the store round trips of a write. The
 * connection must have been opened with command monitoring on (withCommandMonitoring).
 */
export async function commandsSent(conn: mongoose.Connection, fn: () => Promise<unknown>): Promise<string[]> {
  const client = conn.getClient();
  const seen: string[] = [];
  const listen = (e: { commandName: string; command: Record<string, unknown> }) => {
    const coll = e.command[e.commandName];
    seen.push(typeof coll === 'string' ? `${e.commandName} ${coll}` : e.commandName);
  };
  client.on('commandStarted', listen);
  try {
    await fn();
  } finally {
    client.off('commandStarted', listen);
  }
  return seen;
}
