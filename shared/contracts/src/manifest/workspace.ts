import { defineOperations } from './operation';

/** The workspace service's public operations. */
export const WORKSPACE = defineOperations({});
