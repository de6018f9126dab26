/**
 * The in-process socket (src/in-process-socket.ts): what each end of a pair reads of what the other
 * wrote, and what a peerless one (kit's in-process hops) tells its owner when destroyed.
 */
import { once } from 'node:events';
import { InProcessSocket, inProcessSocketPair } from '../src/in-process-socket';

const tick = () => new Promise<void>((resolve) => process.nextTick(resolve));

describe('in-process socket pair', () => {
  it('delivers bytes on the next tick, in order, then the end', async () => {
    const [a, b] = inProcessSocketPair();
    const seen: string[] = [];
    b.on('data', (chunk: Buffer) => seen.push(chunk.toString()));
    const ended = once(b, 'end');
    a.write(Buffer.from('one'));
    a.write(Buffer.from('two'));
    expect(seen).toEqual([]);
    a.end();
    await ended;
    expect(seen.join('')).toBe('onetwo');
    a.destroy();
    b.destroy();
  });

  it('closes the peer after the bytes written before a destroy', async () => {
    const [a, b] = inProcessSocketPair();
    const seen: string[] = [];
    b.on('data', (chunk: Buffer) => seen.push(chunk.toString()));
    const closed = once(b, 'close');
    a.write(Buffer.from('last'));
    a.destroy();
    await closed;
    expect(seen).toEqual(['last']);
  });

  it("fires 'timeout' after that long without reads or writes", async () => {
    const [a, b] = inProcessSocketPair();
    const timedOut = once(a, 'timeout');
    a.setTimeout(20);
    await timedOut;
    a.destroy();
    b.destroy();
  });
});

describe('in-process socket without a peer', () => {
  it('tells its owner of a destroy and closes without emitting the error', async () => {
    const told: (Error | null)[] = [];
    const s = new InProcessSocket({ remoteAddress: '127.0.0.1', remotePort: 0, onDestroy: (e) => told.push(e) });
    const errors: Error[] = [];
    s.on('error', (e) => errors.push(e));
    expect(s.remoteAddress).toBe('127.0.0.1');
    expect(s.write(Buffer.from('goes nowhere'))).toBe(true);
    const closed = once(s, 'close');
    const boom = new Error('boom');
    s.destroy(boom);
    expect(told).toEqual([boom]);
    await closed;
    await tick();
    expect(errors).toEqual([]);
  });
});
