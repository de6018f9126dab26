/** Removes what a test platform declared on a shared RabbitMQ (its exchanges and each service's queues): @helpdesk/local's one helper. */
export { deleteAmqpNames } from '@helpdesk/local';
