import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { ApiError, errorBody, newId, slowClientServerOptions, SLOW_CLIENT_LIMITS, type SlowClientLimits } from '@helpdesk/kit';
import { JSON_CT } from './pipeline/exchange';

export { BASE_PATH } from './pipeline/exchange';

/** What a request Node's parser refused gets: status line and message. */
function refusalOf(code: string | undefined): { status: number; line: string; message: string } {
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, line: '431 Request Header Fields Too Large', message: 'Request headers are too large.' };
  // The headers did not arrive within the slow-client limit (docs/adr/0063).
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, line: '408 Request Timeout', message: 'The request headers arrived too slowly.' };
  return { status: 400, line: '400 Bad Request', message: 'Malformed HTTP request.' };
}

/**
 * The HTTP server; requests Node's parser rejects (e.g. a header folded over a newline) still get the
 * error shape. A slow client is disconnected (docs/adr/0063): its headers within `slow.headersMs`,
 * its body at `slow.minBytesPerSecond` (the body step watches it).
 */
export function createGatewayServer(listener: (req: IncomingMessage, res: ServerResponse) => void, slow: SlowClientLimits = SLOW_CLIENT_LIMITS): Server {
  const server = createServer({ keepAliveTimeout: 65_000, ...slowClientServerOptions(slow) }, listener);
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const requestId = newId('request');
    const refusal = refusalOf(err.code);
    const body = JSON.stringify(errorBody(new ApiError('parameter_invalid', refusal.message, undefined, { status: refusal.status }), requestId));
    socket.end(
      `HTTP/1.1 ${refusal.line}\r\nContent-Type: ${JSON_CT}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nx-svc-request-id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  return server;
}
