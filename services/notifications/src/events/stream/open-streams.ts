import type { Response } from 'express';
import { ApiError } from '@helpdesk/kit';

/**
 * The event streams this process has open (the team's and the widget's), so that stopping the
 * service ends them at once: an open stream is a request that never finishes, and a server's close
 * would otherwise wait for it (kit's closeServer gives up only after 5 s). Each ends with its last
 * frame flushed and its connection closed (a keep-alive socket would wait too); clients reconnect
 * with `Last-Event-ID`, to another replica or to this one once it is back (docs/adr/0021).
 */
export class OpenStreams {
  private readonly open = new Set<Response>();
  private closing = false;

  get size(): number {
    return this.open.size;
  }

  /** Keeps `res` until it closes; refused (503) once the service is stopping. */
  add(res: Response): void {
    if (this.closing) throw new ApiError('service_unavailable', 'This server is shutting down; reconnect in a moment.', undefined, { headers: { 'Retry-After': '1' } });
    this.open.add(res);
    res.once('close', () => this.open.delete(res));
  }

  /** Ends every open stream now and refuses new ones. */
  endAll(): void {
    this.closing = true;
    for (const res of [...this.open]) {
      this.open.delete(res);
      if (res.writableEnded || res.destroyed) continue;
      res.end(() => res.socket?.destroy());
    }
  }
}
