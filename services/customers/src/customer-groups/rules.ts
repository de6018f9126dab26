import type mongoose from 'mongoose';
import slugify from 'slugify';
import { GROUP_SLUG_MAX, type CreateGroupInput, type ListGroupsQuery, type Page, type UpdateGroupInput } from '@helpdesk/contracts';
import {
  changeSet,
  conflictOnDuplicate,
  escapeRegex,
  eventScopeOf,
  findPage,
  foundOr404,
  mergeFreeForm,
  newUuid,
  randomBase62,
  scoped,
  withOutbox,
  withoutNulls,
  type RequestContext,
  type Scope,
  type Unscoped,
  type ScopedFilter,
} from '@helpdesk/kit';
import type { CustomersModels } from '../collections';
import type { MembershipDoc } from './members/model';
import type { GroupDoc } from './model';
import { groupSnapshot, groupView, type CustomerGroupView } from './view';

export interface GroupRulesDeps {
  conn: mongoose.Connection;
  models: CustomersModels;
}

/**
 * The slug of a name: slugify's lowercase strict form, cut to 100 characters. A name with no letter
 * or digit slugify knows (emoji, CJK) gets `group-` and 8 random characters instead.
 */
export function slugOf(name: string): string {
  const slug = slugify(name, { lower: true, strict: true }).slice(0, GROUP_SLUG_MAX).replace(/-+$/, '');
  return slug || `group-${randomBase62(8).toLowerCase()}`;
}

const conflicts = (slug: string) => ({
  slug: { param: 'slug', message: `A customer group with the slug '${slug}' already exists.` },
  externalId: { param: 'externalId', message: 'A customer group with this externalId already exists.' },
});

/** The rules of customer groups (docs/adr/0006); their members are ./members. */
export function groupRules({ conn, models }: GroupRulesDeps) {
  async function findOr404(scope: Scope, id: string, session?: mongoose.ClientSession): Promise<GroupDoc> {
    return foundOr404(scoped(models, scope).groups.findOne({ _id: id }).session(session ?? null).lean<GroupDoc>(), 'customer group', id);
  }

  return {
    findOr404,

    /** Newest first; `search` is a case-insensitive substring of the name. */
    async list(ctx: RequestContext, q: ListGroupsQuery): Promise<Page<CustomerGroupView>> {
      const db = scoped(models, ctx);
      const filter: ScopedFilter<GroupDoc> = {};
      const search = q.search?.trim();
      if (search) filter.name = { $regex: escapeRegex(search), $options: 'i' };
      const { rows, pagination } = await findPage(db.groups, filter, q);
      return { data: rows.map(groupView), pagination };
    },

    async get(ctx: RequestContext, id: string): Promise<CustomerGroupView> {
      return groupView(await findOr404(ctx, id));
    },

    /** A slug given or generated must be free in the team and partition (409 param slug either way). */
    async create(ctx: RequestContext, input: CreateGroupInput): Promise<CustomerGroupView> {
      const now = new Date();
      const doc: Unscoped<GroupDoc> = {
        _id: newUuid(),
        name: input.name,
        slug: input.slug ?? slugOf(input.name),
        description: input.description ?? null,
        externalId: input.externalId ?? null,
        customFields: withoutNulls(input.customFields ?? {}),
        customerCount: 0,
        createdAt: now,
        updatedAt: now,
      };
      const db = scoped(models, ctx);
      await conflictOnDuplicate(
        () =>
          withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
            await db.groups.create([doc], { session });
            emit({ type: 'customer_group.created', data: { group: groupSnapshot(doc) } });
          }),
        conflicts(doc.slug),
      );
      return groupView(doc);
    },

    /** Renaming keeps the slug (links stay stable); send `slug` to change it. */
    async update(ctx: RequestContext, id: string, input: UpdateGroupInput): Promise<CustomerGroupView> {
      const db = scoped(models, ctx);
      const next = await conflictOnDuplicate(
        () =>
          withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
            const cur = await findOr404(ctx, id, session);
            const { set, previous, change, changes: changedFields, applyDefined } = changeSet<GroupDoc>(cur);
            applyDefined(input, ['name', 'slug', 'description']);
            if (input.customFields !== undefined) change('customFields', mergeFreeForm(cur.customFields ?? {}, input.customFields, 'customFields'));
            const changes = changedFields();
            if (!changes.length) return cur;
            set.updatedAt = new Date();
            const written = await db.groups.findOneAndUpdate({ _id: id }, { $set: set }, { session, returnDocument: 'after' }).lean<GroupDoc>();
            emit({ type: 'customer_group.updated', data: { group: groupSnapshot(written!), changes, previous } });
            return written!;
          }),
        conflicts(input.slug ?? ''),
      );
      return groupView(next);
    },

    /** Members are detached (memberships removed), never deleted; one customer_group.deleted says how many. */
    async remove(ctx: RequestContext, id: string): Promise<{ deleted: true; id: string }> {
      const db = scoped(models, ctx);
      await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        // The group first: this write conflicts with any member add on it right now.
        const cur = await foundOr404(db.groups.findOneAndDelete({ _id: id }, { session }).lean<GroupDoc>(), 'customer group', id);
        const members = await db.memberships.find({ groupId: id }, { customerId: 1 }).session(session).lean<MembershipDoc[]>();
        if (members.length) {
          await db.memberships.deleteMany({ groupId: id }, { session });
          await db.customers.updateMany({ _id: { $in: members.map((m) => m.customerId) } }, { $inc: { groupCount: -1 } }, { session });
        }
        emit({ type: 'customer_group.deleted', data: { groupId: id, group: groupSnapshot(cur), membersDetached: members.length } });
      });
      return { deleted: true, id };
    },
  };
}

export type GroupRules = ReturnType<typeof groupRules>;
