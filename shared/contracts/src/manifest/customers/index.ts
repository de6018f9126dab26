import { CUSTOMER_RECORDS } from './customers';
import { CUSTOMER_GROUPS } from './groups';
import { CUSTOMER_STATUSES } from './statuses';

/** The customers service's operations, one file per resource (docs/adr/0006). */
export * from './customers';
export * from './groups';
export * from './statuses';
export * from './widget';
export * from './dataops';

export const CUSTOMERS = { ...CUSTOMER_RECORDS, ...CUSTOMER_GROUPS, ...CUSTOMER_STATUSES };
