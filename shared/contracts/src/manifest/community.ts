import { defineOperations } from './operation';

/** The community service's public operations. */
export const COMMUNITY = defineOperations({});
