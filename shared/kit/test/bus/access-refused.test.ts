import { BrokerAccessRefused, isAccessRefused, redactedUrl } from '../../src/bus';

describe('broker access refusals (fatal) and transient failures (retried)', () => {
  it.each([
    ['login refused', new Error('Handshake terminated by server: 403 (ACCESS-REFUSED) with message "ACCESS_REFUSED - Login was refused using authentication mechanism PLAIN."')],
    ['a queue declare refused on a channel', Object.assign(new Error('Operation failed: QueueDeclare; 403 (ACCESS-REFUSED) with message "ACCESS_REFUSED - access to queue \'helpdesk.x\' in vhost \'/\' refused for user \'app\'"'), { code: 403 })],
    ['a channel closed with 403', Object.assign(new Error('Channel closed by server'), { code: 403 })],
    ['the vhost refused', new Error('Connection closed: 530 (NOT-ALLOWED) with message "NOT_ALLOWED - access to vhost \'/\' refused for user \'app\'"')],
  ])('fatal: %s', (_what, err) => expect(isAccessRefused(err)).toBe(true));

  it.each([
    ['connection refused', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5672'), { code: 'ECONNREFUSED' })],
    ['DNS', Object.assign(new Error('getaddrinfo ENOTFOUND rabbitmq'), { code: 'ENOTFOUND' })],
    ['broker restarting', Object.assign(new Error('Connection closed: 320 (CONNECTION-FORCED) with message "CONNECTION_FORCED - broker forced connection closure with reason \'shutdown\'"'), { code: 320 })],
    ['vhost down while the broker recovers', new Error('Connection closed: 530 (NOT-ALLOWED) with message "NOT_ALLOWED - vhost / is down"')],
    ['a queue with other arguments', Object.assign(new Error('PRECONDITION_FAILED'), { code: 406 })],
    ['nothing', undefined],
  ])('retried: %s', (_what, err) => expect(isAccessRefused(err)).toBe(false));

  it('names AMQP_URL without its password', () => {
    expect(redactedUrl('amqp://app:s3cret@rabbit.internal:5672/helpdesk?heartbeat=5')).toBe('amqp://app:***@rabbit.internal:5672/helpdesk?heartbeat=5');
    expect(redactedUrl('amqp://rabbit:5672')).toBe('amqp://rabbit:5672');
    const err = new BrokerAccessRefused('amqp://app:s3cret@rabbit:5672', new Error('ACCESS_REFUSED - Login was refused'));
    expect(err.message).toContain('AMQP_URL=amqp://app:***@rabbit:5672');
    expect(err.message).toContain('ACCESS_REFUSED - Login was refused');
    expect(err.message).not.toContain('s3cret');
  });
});
