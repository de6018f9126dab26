import { GAME } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { GameRules } from '../rules';
import { COSMETICS } from './catalog';

/** The shop: its catalog, buying with gold, equipping. */
export const cosmeticHandlers = ({ members, actions }: GameRules) =>
  handlersFor(GAME)({
    async listCosmetics({ ctx }) {
      await members.requireFeature(ctx.teamId, 'cosmeticsEnabled');
      return COSMETICS.map((c) => ({ ...c }));
    },
    async purchaseCosmetic({ ctx, params, body }) {
      await members.requireFeature(ctx.teamId, 'cosmeticsEnabled');
      return actions.purchaseCosmetic(ctx, await members.actor(ctx, body.userId), params.cosmeticKey);
    },
    async equipCosmetics({ ctx, body }) {
      await members.requireFeature(ctx.teamId, 'cosmeticsEnabled');
      const { userId, ...choice } = body;
      return actions.equip(ctx, await members.actor(ctx, userId), choice);
    },
  });
