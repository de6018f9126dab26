// `npm start` boots the registry's services in one process, each after the services it calls (it is
// handed their URLs at start), through the start function its package exports.
import { bootOrder, processNamed, SERVICES, servicePackage, startFunctionName, type ProcessEntry } from '../../registry';
import { START_FUNCTIONS } from '../src/services.generated';

it('boots every registry service once, each after the services it calls', () => {
  const order = bootOrder().map((s) => s.name);
  expect([...order].sort()).toEqual(SERVICES.map((s) => s.name).sort());
  for (const s of SERVICES) for (const call of s.calls) expect([s.name, order.indexOf(call.service) < order.indexOf(s.name)]).toEqual([s.name, true]);
});

it('refuses calls that form a cycle, naming the services', () => {
  const a: ProcessEntry = { ...processNamed('knowledge'), name: 'a', calls: [{ service: 'b', env: 'B_URL', why: 'test' }] };
  const b: ProcessEntry = { ...processNamed('knowledge'), name: 'b', calls: [{ service: 'a', env: 'A_URL', why: 'test' }] };
  expect(() => bootOrder([a, b])).toThrow(/a, b form a cycle/);
});

it("has each service's start function from its package, by the registry's naming", () => {
  expect(Object.keys(START_FUNCTIONS)).toEqual(SERVICES.map((s) => s.name));
  for (const [name, start] of Object.entries(START_FUNCTIONS)) expect([servicePackage(name), start.name]).toEqual([servicePackage(name), startFunctionName(name)]);
});
