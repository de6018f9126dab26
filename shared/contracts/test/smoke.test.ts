import { z } from 'zod';
test('toolchain runs TypeScript through swc', () => {
  expect(z.string().parse('x')).toBe('x');
});
