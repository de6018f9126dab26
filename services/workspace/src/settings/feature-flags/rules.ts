import type { FeatureFlag, UpdateFeatureFlagsInput } from '@helpdesk/contracts';
import type { RequestContext } from '@helpdesk/kit';
import { fieldChanges, givenFields } from '../field-changes';
import type { SettingsRules } from '../rules';
import { featureFlagsView as view } from './view';

/**
 * The team's game switches (docs/adr/0014). `PATCH /preferences` and `PATCH /settings/feature-flags`
 * change the same `bossBattlesEnabled`; both emit `feature_flags.updated`, which the game service will keep.
 */
export function featureFlagRules(settings: SettingsRules) {
  return {
    get: async (ctx: RequestContext) => view((await settings.read(ctx)).featureFlags),

    update(ctx: RequestContext, input: UpdateFeatureFlagsInput) {
      return settings.change(
        ctx,
        (cur, c) => c.change('featureFlags', { ...cur.featureFlags, ...givenFields(input) }),
        (doc, _changes, previous) => ({
          type: 'feature_flags.updated',
          data: { featureFlags: { ...doc.featureFlags }, ...fieldChanges(previous.featureFlags as Record<FeatureFlag, boolean>, doc.featureFlags) },
        }),
        (doc) => view(doc.featureFlags),
      );
    },
  };
}
