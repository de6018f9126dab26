import { Writable } from 'node:stream';
import { createHostLogger, createLogger } from '../src';

/** Lines written to a host logger, as text (each a JSON object). */
function capture(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { stream, lines };
}

test("a host process's logger: each service's line names its service once, the host's own lines name the process", () => {
  const { stream, lines } = capture();
  const host = createHostLogger('local', 'info', stream);
  host.child({ service: 'customers' }).info('customers listening');
  host.info('platform ready');
  expect(lines[0]!.match(/"service":/g)).toHaveLength(1);
  expect(JSON.parse(lines[0]!)).toMatchObject({ service: 'customers', process: 'local', msg: 'customers listening' });
  expect(JSON.parse(lines[1]!)).toMatchObject({ process: 'local', msg: 'platform ready' });
  expect(lines[1]).not.toContain('"service"');
});

test("a service process's logger names its service", () => {
  expect(createLogger('ticketing').bindings()).toMatchObject({ service: 'ticketing' });
});
