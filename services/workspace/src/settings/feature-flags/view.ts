import type { FeatureFlag } from '@helpdesk/contracts';

/** The team's game switches as answers show them. */
export const featureFlagsView = (flags: Record<FeatureFlag, boolean>) => ({ object: 'feature_flags' as const, ...flags });
