import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { ApiError, errorBody, newId } from '@helpdesk/kit';
import { JSON_CT } from './pipeline/exchange';

export { BASE_PATH } from './pipeline/exchange';

/** The HTTP server; requests Node's parser rejects (e.g. a header folded over a newline) still get the error shape. */
export function createGatewayServer(listener: (req: IncomingMessage, res: ServerResponse) => void): Server {
  const server = createServer({ keepAliveTimeout: 65_000 }, listener);
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const requestId = newId('request');
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const body = JSON.stringify(
      errorBody(new ApiError('parameter_invalid', tooLarge ? 'Request headers are too large.' : 'Malformed HTTP request.', undefined, { status: tooLarge ? 431 : 400 }), requestId),
    );
    socket.end(
      `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\nContent-Type: ${JSON_CT}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nx-svc-request-id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  return server;
}
