import type mongoose from 'mongoose';
import { SIGN_IN_LINK_TTL_MS, type Actor, type RequestSignInLinkInput } from '@helpdesk/contracts';
import { acrossTeams, eventScopeOf, foundOr404, newId, notFound, scoped, SYSTEM_ACTOR, withOutbox, type RequestContext, type Unscoped } from '@helpdesk/kit';
import type { MemberDoc } from '../members/model';
import type { MemberRules } from '../members/rules';
import type { WorkspaceModels } from '../collections';
import type { SettingsRules } from '../settings/rules';
import type { SignInLinkDoc } from './model';
import { newSignInToken } from './token';
import { signInLinkSnapshot } from './view';

export interface SignInLinkRulesDeps {
  conn: mongoose.Connection;
  models: WorkspaceModels;
  members: MemberRules;
  settings: SettingsRules;
  /** The console's sign-in page the links open; `?token=…` is added (SIGN_IN_URL). */
  signInUrl: string;
}

/** Links made by one request at most (one per team the address belongs to). */
const TEAMS_PER_REQUEST_MAX = 20;

type Membership = Pick<MemberDoc, '_id' | 'teamId' | 'name' | 'email'>;

/** Sign-in links (docs/adr/0068): made for a member, handed out once with a fresh token, used once by a sign-in. */
export function signInLinkRules({ conn, models, members, settings, signInUrl }: SignInLinkRulesDeps) {
  const db = (ctx: { teamId: string }) => scoped(models, { teamId: ctx.teamId });
  const urlOf = (token: string) => `${signInUrl}${signInUrl.includes('?') ? '&' : '?'}token=${token}`;

  /** A new link of `member`, with its `sign_in_link.requested`; its token is known to the caller only when it keeps it. */
  async function make(member: Membership, delivery: 'mail' | 'operator', requestId: string | null, actor: Actor) {
    const { token, hash } = newSignInToken(member.teamId);
    const link = await withOutbox(conn, { teamId: member.teamId, mode: 'live', requestId, actor }, async (session, emit) => {
      const now = new Date();
      const doc: Unscoped<SignInLinkDoc> = {
        _id: newId('signInLink'),
        memberId: member._id,
        email: member.email,
        delivery,
        tokenHash: hash,
        expiresAt: new Date(now.getTime() + SIGN_IN_LINK_TTL_MS),
        createdAt: now,
        usedAt: null,
        sessionId: null,
      };
      await db(member).signInLinks.create([doc], { session });
      const team = await settings.read(member, session);
      emit({ type: 'sign_in_link.requested', data: { signInLink: signInLinkSnapshot(doc), memberName: member.name, teamName: team.teamName } });
      return doc;
    });
    return { link, token };
  }

  return {
    /**
     * A mailed link for each team the address is a member of (only `teamId`'s when given). The token
     * drawn here is dropped: the mail's sender asks for a usable one (`issueLink`) when it sends it.
     * Nothing is stored for an address that is no member's.
     */
    async request(input: RequestSignInLinkInput, requestId: string | null): Promise<{ count: number }> {
      const emailLower = input.email.toLowerCase();
      const projection = { _id: 1, teamId: 1, name: 1, email: 1 };
      const found: Membership[] = input.teamId
        ? await db({ teamId: input.teamId }).members.find({ emailLower }, projection).lean<Membership[]>()
        : // Across teams on purpose: the person names no team (kit's named way across teams, docs/adr/0065).
          ((await acrossTeams(models).members.find({ emailLower }, { projection }).limit(TEAMS_PER_REQUEST_MAX).toArray()) as unknown as Membership[]);
      for (const member of found) await make(member, 'mail', requestId, SYSTEM_ACTOR);
      return { count: found.length };
    },

    /** A link handed to an operator (the CLI, `npm start`'s banner): the member with `email`, else the team's owner. */
    async createForOperator(ctx: RequestContext, email: string | undefined) {
      const member = email
        ? await db(ctx).members.findOne({ emailLower: email.toLowerCase() }).lean<MemberDoc>()
        : await members.owner(ctx.teamId);
      if (!member) throw notFound(email ? `member with email ${email}` : "team's owner");
      const { link, token } = await make(member, 'operator', ctx.requestId, eventScopeOf(ctx).actor);
      return { url: urlOf(token), token, expiresAt: link.expiresAt.toISOString(), memberId: member._id };
    },

    /**
     * An unused, unexpired link's URL with a new single-use token: only its hash is kept, so each
     * call ends any earlier token of the link. Asked by whoever sends the link's mail, when it sends it.
     */
    async issueLink(scope: { teamId: string }, id: string): Promise<{ url: string; token: string; expiresAt: string }> {
      const { token, hash } = newSignInToken(scope.teamId);
      const link = await foundOr404(
        db(scope).signInLinks.findOneAndUpdate(
          { _id: id, usedAt: null, expiresAt: { $gt: new Date() } },
          { $set: { tokenHash: hash } },
          { returnDocument: 'after' },
        ).lean<SignInLinkDoc>(),
        'unused sign-in link',
        id,
      );
      return { url: urlOf(token), token, expiresAt: link.expiresAt.toISOString() };
    },
  };
}

export type SignInLinkRules = ReturnType<typeof signInLinkRules>;
