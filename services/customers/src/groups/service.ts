import type mongoose from 'mongoose';
import slugify from 'slugify';
import {
  changeSet,
  conflictOnDuplicate,
  escapeRegex,
  eventScopeOf,
  mergeKeyValues,
  OBJECT_KEYS_MAX,
  withoutNulls,
  newUuid,
  notFound,
  pageOf,
  parameterInvalid,
  randomBase62,
  scopeOf,
  skipOf,
  withOutbox,
  type Pagination,
  type RequestContext,
  type Scope,
} from '@helpdesk/kit';
import type { CustomerModel } from '../customers/model';
import type { MembershipDoc, MembershipModel } from '../members/model';
import { groupSnapshot, groupView } from '../views';
import type { GroupDoc, GroupModel } from './model';
import { SLUG_MAX, type CreateGroupInput, type ListGroupsQuery, type UpdateGroupInput } from './schema';

export interface GroupDeps {
  conn: mongoose.Connection;
  groups: GroupModel;
  memberships: MembershipModel;
  customers: CustomerModel;
}

/**
 * The slug of a name: slugify's lowercase strict form, cut to 100 characters. A name with no letter
 * or digit slugify knows (emoji, CJK) gets `group-` and 8 random characters instead.
 */
export function slugOf(name: string): string {
  const slug = slugify(name, { lower: true, strict: true }).slice(0, SLUG_MAX).replace(/-+$/, '');
  return slug || `group-${randomBase62(8).toLowerCase()}`;
}

const conflicts = (slug: string) => ({
  slug: { param: 'slug', message: `A customer group with the slug '${slug}' already exists.` },
  externalId: { param: 'externalId', message: 'A customer group with this externalId already exists.' },
});

export function createGroupService(deps: GroupDeps) {
  const { conn, groups: Groups, memberships: Memberships, customers: Customers } = deps;

  async function findOr404(scope: Scope, id: string, session?: mongoose.ClientSession): Promise<GroupDoc> {
    const g = await Groups.findOne({ _id: id, ...scope }).session(session ?? null).lean<GroupDoc>();
    if (!g) throw notFound('customer group', id);
    return g;
  }

  return {
    findOr404,

    /** Newest first; `search` is a case-insensitive substring of the name. */
    async list(ctx: RequestContext, q: ListGroupsQuery): Promise<{ items: ReturnType<typeof groupView>[]; pagination: Pagination }> {
      const filter: Record<string, unknown> = { ...scopeOf(ctx) };
      const search = q.search?.trim();
      if (search) filter.name = { $regex: escapeRegex(search), $options: 'i' };
      const [total, rows] = await Promise.all([
        Groups.countDocuments(filter),
        Groups.find(filter).sort({ createdAt: -1, _id: -1 }).skip(skipOf(q.page, q.pageSize)).limit(q.pageSize).lean<GroupDoc[]>(),
      ]);
      return { items: rows.map(groupView), pagination: pageOf(q.page, q.pageSize, total) };
    },

    async get(ctx: RequestContext, id: string) {
      return groupView(await findOr404(scopeOf(ctx), id));
    },

    /** A slug given or generated must be free in the team and partition (409 param slug either way). */
    async create(ctx: RequestContext, input: CreateGroupInput) {
      const now = new Date();
      const doc: GroupDoc = {
        _id: newUuid(),
        ...scopeOf(ctx),
        name: input.name,
        slug: input.slug ?? slugOf(input.name),
        description: input.description ?? null,
        externalId: input.externalId ?? null,
        customFields: withoutNulls(input.customFields ?? {}),
        customerCount: 0,
        createdAt: now,
        updatedAt: now,
      };
      await conflictOnDuplicate(
        () =>
          withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
            await Groups.create([doc], { session });
            emit({ type: 'customer_group.created', data: { group: groupSnapshot(doc) } });
          }),
        conflicts(doc.slug),
      );
      return groupView(doc);
    },

    /** Renaming keeps the slug (links stay stable); send `slug` to change it. */
    async update(ctx: RequestContext, id: string, input: UpdateGroupInput) {
      const scope = scopeOf(ctx);
      const next = await conflictOnDuplicate(
        () =>
          withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
            const cur = await findOr404(scope, id, session);
            const { set, previous, change, changes: changedFields } = changeSet<GroupDoc>(cur);
            if (input.name !== undefined) change('name', input.name);
            if (input.slug !== undefined) change('slug', input.slug);
            if (input.description !== undefined) change('description', input.description);
            if (input.customFields !== undefined) {
              const merged = mergeKeyValues(cur.customFields ?? {}, input.customFields);
              if (Object.keys(merged).length > OBJECT_KEYS_MAX) {
                throw parameterInvalid('customFields', `Invalid customFields: at most ${OBJECT_KEYS_MAX} keys after merging.`);
              }
              change('customFields', merged);
            }
            const changes = changedFields();
            if (!changes.length) return cur;
            set.updatedAt = new Date();
            const written = await Groups.findOneAndUpdate({ _id: id, ...scope }, { $set: set }, { session, returnDocument: 'after' }).lean<GroupDoc>();
            emit({ type: 'customer_group.updated', data: { group: groupSnapshot(written!), changes, previous } });
            return written!;
          }),
        conflicts(input.slug ?? ''),
      );
      return groupView(next);
    },

    /** Members are detached (memberships removed), never deleted; one customer_group.deleted says how many. */
    async remove(ctx: RequestContext, id: string) {
      const scope = scopeOf(ctx);
      await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        // The group first: this write conflicts with any member add on it right now.
        const cur = await Groups.findOneAndDelete({ _id: id, ...scope }, { session }).lean<GroupDoc>();
        if (!cur) throw notFound('customer group', id);
        const members = await Memberships.find({ ...scope, groupId: id }, { customerId: 1 }).session(session).lean<MembershipDoc[]>();
        if (members.length) {
          await Memberships.deleteMany({ ...scope, groupId: id }, { session });
          await Customers.updateMany({ ...scope, _id: { $in: members.map((m) => m.customerId) } }, { $inc: { groupCount: -1 } }, { session });
        }
        emit({ type: 'customer_group.deleted', data: { groupId: id, group: groupSnapshot(cur), membersDetached: members.length } });
      });
      return { deleted: true as const, id };
    },
  };
}

export type GroupService = ReturnType<typeof createGroupService>;
