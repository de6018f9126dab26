/**
 * The stream's ids (`<ms>-<seq>`, docs/adr/0021) compare as their two numbers do: the in-place
 * comparison every open stream makes per entry (docs/adr/0073) agrees with comparing the numbers,
 * for ids the log writes and for ids a client sends (leading zeros included).
 */
import { compareIds } from '../src/events/stream/log';

const byNumbers = (a: string, b: string) => {
  const [am, as] = a.split('-').map(Number);
  const [bm, bs] = b.split('-').map(Number);
  return am !== bm ? am - bm : as - bs;
};
const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0);

describe('compareIds', () => {
  it('orders ids as their numbers: milliseconds first, then the sequence', () => {
    expect(compareIds('1700000000000-0', '1700000000000-0')).toBe(0);
    expect(sign(compareIds('1700000000000-1', '1700000000000-0'))).toBe(1);
    expect(sign(compareIds('1700000000000-9', '1700000000000-10'))).toBe(-1);
    expect(sign(compareIds('999999999999-5', '1700000000000-0'))).toBe(-1);
    expect(sign(compareIds('1700000000001-0', '1700000000000-99'))).toBe(1);
    expect(sign(compareIds('0-0', '1-0'))).toBe(-1);
  });

  it('agrees with comparing the numbers on random ids, leading zeros included', () => {
    const rnd = (n: number) => Math.floor(Math.random() * n);
    const id = () => `${rnd(4) === 0 ? '0' : ''}${1_700_000_000_000 + rnd(1000)}-${rnd(4) === 0 ? '0' : ''}${rnd(rnd(2) ? 10 : 2000)}`;
    for (let i = 0; i < 20_000; i++) {
      const a = id();
      const b = rnd(10) === 0 ? a : id();
      expect([a, b, sign(compareIds(a, b))]).toEqual([a, b, sign(byNumbers(a, b))]);
    }
  });
});
