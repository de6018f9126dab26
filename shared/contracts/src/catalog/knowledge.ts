import type { z } from 'zod';

/**
 * The knowledge service's events (type → {version, data schema}), spread into EVENT_CATALOG in ../events.ts.
 * Snapshot schemas the events carry live here too, so that each service's events sit in one file.
 */
export const KNOWLEDGE_EVENTS = {} as const satisfies Record<string, { version: number; data: z.ZodType }>;
