// The private-broker helper lives beside the scripts it runs, shared with the platform fault tests.
export { PrivateBroker } from '../../../../scripts/private-broker';
