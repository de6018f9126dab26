import { defineOperations } from './operation';

/** The knowledge service's public operations. */
export const KNOWLEDGE = defineOperations({});
