import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { ApiError, watchBodyRate, type SlowClientLimits } from '@helpdesk/kit';
import type { Step } from '../exchange';

function isJsonContentType(ct: string | undefined): boolean {
  if (!ct) return false;
  const semi = ct.indexOf(';');
  const media = (semi === -1 ? ct : ct.slice(0, semi)).trim().toLowerCase();
  return media === 'application/json' || (media.startsWith('application/') && media.endsWith('+json'));
}

/** The body up to `limit` bytes (null when larger); a body slower than `slow` allows ends the connection (docs/adr/0063). */
function readBody(req: IncomingMessage, limit: number, slow: SlowClientLimits): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    watchBodyRate(req, slow, () => reject(new ApiError('parameter_invalid', 'The request body arrived too slowly.', undefined, { status: 408 })));
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) tooLarge = true;
      else chunks.push(c);
    });
    req.on('end', () => (tooLarge ? resolve(null) : resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size))));
    req.on('error', reject);
  });
}

/**
 * Step: a body (any method but GET and HEAD) must be JSON: the content type `application/json` (or
 * `application/*+json`), valid UTF-8 and parseable (400 `invalid_json`); larger than the limit is 413.
 * The raw bytes are forwarded, never re-serialised.
 */
export const body: Step = async (x, g) => {
  if (x.method === 'GET' || x.method === 'HEAD') return;
  const raw = await readBody(x.req, x.route?.op.bodyLimitBytes ?? g.bodyLimitBytes, g.slowClients);
  if (raw === null) throw new ApiError('parameter_invalid', 'The request body is too large.', undefined, { status: 413 });
  if (raw.length === 0) return;
  if (!isJsonContentType(x.req.headers['content-type'])) {
    throw new ApiError('invalid_json', 'Request bodies must be JSON, sent with Content-Type: application/json.');
  }
  if (!isUtf8(raw)) throw new ApiError('invalid_json', 'The request body is not valid UTF-8.');
  try {
    JSON.parse(raw.toString('utf8'));
  } catch {
    throw new ApiError('invalid_json', 'The request body is not valid JSON.');
  }
  x.body = raw;
};
