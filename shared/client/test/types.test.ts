/**
 * Compile-time checks of the typed client (`npm run typecheck` runs tsc over shared/*\/test): the
 * generated types type every call, and a call the document does not allow fails to compile. The
 * functions never run; jest only loads the file.
 */
import { createHelpdeskClient, unwrap, unwrapPage, type GetBody, type ItemOf, type ListPath } from '../src';

const hd = createHelpdeskClient({ baseUrl: 'http://127.0.0.1:1/api/v1', apiKey: 'sk_test_x' });
const teamId = '00000000-0000-4000-8000-000000000000';
const ticketId = 'tkt_abcdefghijkl';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const assertType = <T extends true>(_ok?: T) => undefined;
/** `is<Expected>()(value)` compiles only when the value's type is exactly `Expected`. */
const is =
  <Expected>() =>
  <Actual>(_value: Actual, ..._exact: Equal<Actual, Expected> extends true ? [] : [never]) =>
    undefined;

export async function typedCalls(): Promise<void> {
  // the answer's data is typed, whatever the shape
  const ticket = await hd.data(hd.POST('/teams/{teamId}/tickets', { params: { path: { teamId } }, body: { title: 'x', priority: 'high' }, idempotencyKey: 'k' }));
  is<string>()(ticket.title);
  is<'low' | 'normal' | 'high' | 'urgent'>()(ticket.priority);
  const same = unwrap(await hd.GET('/teams/{teamId}/tickets/{ticketId}', { params: { path: { teamId, ticketId } } }));
  is<string>()(same.id);
  const group = await hd.data(hd.GET('/teams/{teamId}/customer-groups/{groupId}', { params: { path: { teamId, groupId: teamId } } }));
  is<'customer_group'>()(group.object);
  const groups = unwrapPage(await hd.GET('/teams/{teamId}/customer-groups', { params: { path: { teamId } } }));
  is<'customer_group'>()(groups.data[0].object);
  const tickets = await hd.page(hd.GET('/teams/{teamId}/tickets', { params: { path: { teamId }, query: { pageSize: 5, 'expand[]': ['customer'] } } }));
  is<string>()(tickets.data[0].title);
  for await (const t of hd.paginate('/teams/{teamId}/tickets', { params: { path: { teamId }, query: { pageSize: 2 } } })) is<string>()(t.title);
  for await (const m of hd.paginate('/teams/{teamId}/customer-groups/{groupId}/members', { params: { path: { teamId, groupId: teamId } } })) {
    is<'customer'>()(m.object);
  }
  const me = await hd.data(hd.GET('/auth/whoami'));
  is<'secret' | 'publishable' | 'session'>()(me.keyType);
  await hd.PATCH('/teams/{teamId}/tickets/{ticketId}', { params: { path: { teamId, ticketId } }, body: { priority: 'low' }, retries: 0 });
  await hd.DELETE('/teams/{teamId}/tickets/{ticketId}', { params: { path: { teamId, ticketId } } });

  // what the document does not allow fails to compile
  // @ts-expect-error a body field the operation does not have
  await hd.POST('/teams/{teamId}/tickets', { params: { path: { teamId } }, body: { title: 'x', bogus: 1 } });
  // @ts-expect-error a value outside the enum
  await hd.POST('/teams/{teamId}/tickets', { params: { path: { teamId } }, body: { title: 'x', priority: 'bogus' } });
  // @ts-expect-error a required body field missing
  await hd.POST('/teams/{teamId}/tickets', { params: { path: { teamId } }, body: { priority: 'low' } });
  // @ts-expect-error a path parameter missing
  await hd.GET('/teams/{teamId}/tickets');
  // @ts-expect-error a path the document does not have
  await hd.GET('/teams/{teamId}/nope', { params: { path: { teamId } } });
  // @ts-expect-error a method the path does not have
  await hd.PATCH('/teams/{teamId}/tickets', { params: { path: { teamId } }, body: {} });
  // @ts-expect-error a query parameter of the wrong type
  await hd.GET('/teams/{teamId}/tickets', { params: { path: { teamId }, query: { pageSize: 'ten' } } });
  // @ts-expect-error an idempotency key that is not a string
  await hd.POST('/teams/{teamId}/tickets', { params: { path: { teamId } }, body: { title: 'x' }, idempotencyKey: 42 });
  // @ts-expect-error paginate walks lists only
  hd.paginate('/teams/{teamId}/tickets/{ticketId}', { params: { path: { teamId, ticketId } } });
}

assertType<Equal<ItemOf<GetBody<'/teams/{teamId}/customer-groups'>>['object'], 'customer_group'>>();
assertType<'/teams/{teamId}/tickets' extends ListPath ? true : false>();
assertType<'/auth/whoami' extends ListPath ? false : true>();

it('the typed client compiles (checked by tsc; see the file comment)', () => expect(typeof typedCalls).toBe('function'));
