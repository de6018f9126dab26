/** commitAndDispatch: rows leased to the local worker when it has room, handed over only once committed. */
import { commitAndDispatch, commitAndDispatchGroups, type Dispatcher, type NewDelivery, type Reservation } from '../src/delivery/dispatch';
import { newDeliveryRow, NO_LEASE } from '../src/webhooks/deliveries/model';

const scope = { teamId: 't', mode: 'test' } as const;
const rows = () =>
  [1, 2].map((i) =>
    newDeliveryRow({ id: `dlv_${i}`, webhookId: 'whk_1', eventId: 'evt_1', eventType: 'ticket.created', requestId: null, test: false, body: '{}', now: new Date() }),
  );

function fake(room: boolean, free = Infinity) {
  const calls: string[] = [];
  const until = new Date(Date.now() + 60_000);
  const dispatch: Dispatcher = {
    kick: () => calls.push('kick'),
    reserve: (n): Reservation | null =>
      room ? { owner: 'wrk_me:direct', until, count: Math.min(n, free), take: (s, r) => calls.push(`take ${r.length} in ${s.teamId}:${s.mode}`), release: () => calls.push(`release ${n}`) } : null,
  };
  return { calls, dispatch, until };
}

test('with room: the rows are written leased to the worker and handed over after the commit', async () => {
  const f = fake(true);
  let written: NewDelivery[] = [];
  await commitAndDispatch(f.dispatch, scope, rows(), new Map(), async (r) => {
    written = r.map((x) => ({ ...x }));
    f.calls.push('commit');
    return true;
  });
  expect(written.map((r) => [r.leaseOwner, r.leaseUntil])).toEqual([['wrk_me:direct', f.until], ['wrk_me:direct', f.until]]);
  expect(f.calls).toEqual(['commit', 'take 2 in t:test']);
});

test('a duplicate event (nothing committed) gives the slots back; an error too, and is rethrown', async () => {
  const f = fake(true);
  await commitAndDispatch(f.dispatch, scope, rows(), new Map(), async () => false);
  await expect(commitAndDispatch(f.dispatch, scope, rows(), new Map(), async () => Promise.reject(new Error('write conflict')))).rejects.toThrow('write conflict');
  expect(f.calls).toEqual(['release 2', 'release 2']);
});

test('without room: the rows are written unleased and the worker is kicked, only if they were committed', async () => {
  const f = fake(false);
  let written: NewDelivery[] = [];
  await commitAndDispatch(f.dispatch, scope, rows(), new Map(), async (r) => {
    written = r;
    return true;
  });
  expect(written.map((r) => [r.leaseOwner, r.leaseUntil])).toEqual([[null, NO_LEASE], [null, NO_LEASE]]);
  await commitAndDispatch(f.dispatch, scope, rows(), new Map(), async () => false);
  expect(f.calls).toEqual(['kick']);
});

test('room for some: those are written leased and handed over, the rest unleased, and the worker is kicked for them', async () => {
  const f = fake(true, 1);
  let written: NewDelivery[] = [];
  await commitAndDispatch(f.dispatch, scope, rows(), new Map(), async (r) => {
    written = r.map((x) => ({ ...x }));
    f.calls.push('commit');
    return true;
  });
  expect(written.map((r) => [r.leaseOwner, r.leaseUntil])).toEqual([['wrk_me:direct', f.until], [null, NO_LEASE]]);
  expect(f.calls).toEqual(['commit', 'take 1 in t:test', 'kick']);
});

test('several scopes in one unit: one reservation, each scope handed over on its own once committed', async () => {
  const f = fake(true);
  const other = { teamId: 'u', mode: 'live' } as const;
  await commitAndDispatchGroups(f.dispatch, [{ scope, rows: rows(), hooks: new Map() }, { scope: other, rows: rows().slice(0, 1), hooks: new Map() }], async () => {
    f.calls.push('commit');
    return true;
  });
  expect(f.calls).toEqual(['commit', 'take 2 in t:test', 'take 1 in u:live']);
});

test('no rows: nothing is written', async () => {
  const f = fake(true);
  const write = jest.fn(async () => true);
  await commitAndDispatch(f.dispatch, scope, [], new Map(), write);
  expect(write).not.toHaveBeenCalled();
  expect(f.calls).toEqual([]);
});
