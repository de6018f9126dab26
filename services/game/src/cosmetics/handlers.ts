import { GAME } from '@helpdesk/contracts';
import { ApiError, handlersFor } from '@helpdesk/kit';
import type { GameRules } from '../rules';
import { COSMETICS, cosmeticByKey } from './catalog';

/** The shop: its catalog, buying with gold, equipping. */
export const cosmeticHandlers = ({ members, players, actions }: GameRules) =>
  handlersFor(GAME)({
    async listCosmetics({ ctx }) {
      await members.requireFeature(ctx.teamId, 'cosmeticsEnabled');
      return COSMETICS.map((c) => ({ ...c }));
    },
    async getCosmetic({ ctx, params }) {
      await members.requireFeature(ctx.teamId, 'cosmeticsEnabled');
      const c = cosmeticByKey(params.cosmeticKey);
      if (!c) throw new ApiError('resource_not_found', `No cosmetic '${params.cosmeticKey}'.`, 'cosmeticKey');
      return { ...c };
    },
    async getPlayerInventory({ ctx, params }) {
      await members.requireFeature(ctx.teamId, 'cosmeticsEnabled');
      const member = await members.resolve(ctx.teamId, params.memberId, 'memberId');
      const p = await players.find(ctx, member._id);
      const owned = new Set(p?.cosmetics.owned ?? []);
      return {
        object: 'inventory' as const,
        memberId: member._id,
        gold: p?.gold ?? 0,
        equipped: { avatarFrame: p?.cosmetics.avatarFrame ?? null, victoryMessage: p?.cosmetics.victoryMessage ?? null },
        items: COSMETICS.filter((c) => owned.has(c.key)).map((c) => ({ ...c })),
      };
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
