// The private-broker helper lives in the testing package, shared with the platform fault tests.
export { PrivateBroker } from '@helpdesk/testing';
