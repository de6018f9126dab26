// Only an event's owner can publish it (issue 30 item 6): the rule, its table against the deployed
// users' topic permissions, and the in-process bus's check.
import { EVENT_TYPES } from '@helpdesk/contracts';
import { MemoryBus } from '../../src/bus';
import { AGGREGATE_OWNERS, BUS_SERVICES, PUBLISHER_HEADER, amqpUser, effectivePublisher, eventOwner, ownershipRefusal, serviceOfUser } from '../../src/bus/ownership';
import { brokerUsers, eventOwner as deployedOwner } from '../../../../deploy/rabbitmq/topology';
import { envelope, silentLogger } from './fixtures';

describe('event ownership', () => {
  it('gives every catalogued type the owner the generated broker users publish it as', () => {
    for (const type of EVENT_TYPES) expect([type, eventOwner(type)]).toEqual([type, deployedOwner(type)]);
    expect(Object.keys(AGGREGATE_OWNERS).length).toBeGreaterThan(10);
    expect([...BUS_SERVICES].sort()).toEqual(brokerUsers().map((u) => u.name).sort());
  });

  it('maps broker users to services by name (`ticketing`, `<anything>-ticketing`), never guest or an operator', () => {
    expect(serviceOfUser('ticketing')).toBe('ticketing');
    expect(serviceOfUser('helpdesk-customers')).toBe('customers');
    expect(serviceOfUser('permab12-notifications')).toBe('notifications');
    expect(serviceOfUser('guest')).toBeNull();
    expect(serviceOfUser('helpdesk')).toBeNull();
    expect(serviceOfUser('xticketing')).toBeNull();
    expect(serviceOfUser(undefined)).toBeNull();
    expect(amqpUser('amqp://ticketing:pw@host:5672/%2F')).toBe('ticketing');
    expect(amqpUser('amqp://helpdesk%2Dx:pw@host')).toBe('helpdesk-x');
    expect(amqpUser('amqp://host')).toBe('guest');
  });

  it('refuses a type another service owns; trusts a shared user only when it is the consumer’s own', () => {
    const perService = { ownUser: 'notifications' };
    expect(ownershipRefusal('ticket.created', 'ticketing', perService)).toBeNull();
    expect(ownershipRefusal('ticket.created', 'customers', perService)).toMatch(/^not-owner: ticket\.created is owned by ticketing, published by user customers/);
    expect(ownershipRefusal('ticket.created', 'guest', perService)).toMatch(/^not-owner: .*not a service's user/);
    expect(ownershipRefusal('ticket.created', undefined, perService)).toMatch(/^not-owner: .*no user_id/);
    const shared = { ownUser: 'guest' };
    expect(ownershipRefusal('ticket.created', 'guest', shared)).toBeNull();
    expect(ownershipRefusal('ticket.created', undefined, shared)).toBeNull();
    expect(ownershipRefusal('ticket.created', 'customers', shared)).toMatch(/^not-owner/);
    expect(ownershipRefusal('ticket.created', 'mallory', shared)).toMatch(/^not-owner/);
  });

  it('believes the carried publisher of a copy only from the consumer itself or an operator', () => {
    const check = { ownUser: 'notifications' };
    const carried = { [PUBLISHER_HEADER]: 'ticketing' };
    expect(effectivePublisher('notifications', carried, check)).toBe('ticketing'); // its own retry copy
    expect(effectivePublisher('helpdesk', carried, check)).toBe('ticketing'); // an operator's replay
    expect(effectivePublisher('customers', carried, check)).toBe('customers'); // a forgery keeps its user
    expect(effectivePublisher(undefined, carried, check)).toBeUndefined();
  });

  it('in-process bus: an event published by a service that does not own it is dead-lettered with the reason, never handled', async () => {
    const bus = new MemoryBus(silentLogger);
    try {
      const handled: string[] = [];
      await bus.subscribe('notifications', ['ticket.*'], async (e) => void handled.push(e.id));
      const forged = envelope();
      const genuine = envelope();
      const unnamed = envelope();
      await bus.publish([forged], { publisher: 'customers' });
      await bus.publish([genuine], { publisher: 'ticketing' });
      await bus.publish([unnamed]);
      await bus.idle();
      expect(handled.sort()).toEqual([genuine.id, unnamed.id].sort());
      const records = await bus.deadLetterQueue.list('notifications');
      expect(records).toEqual([expect.objectContaining({ eventId: forged.id, type: 'ticket.created', error: 'not-owner: ticket.created is owned by ticketing, published by service customers' })]);
      // A replay is checked again: still refused.
      await bus.deadLetterQueue.replay('notifications', null);
      await bus.idle();
      expect(handled).not.toContain(forged.id);
      expect(await bus.deadLetterQueue.list('notifications')).toHaveLength(1);
    } finally {
      await bus.close();
    }
  });
});
