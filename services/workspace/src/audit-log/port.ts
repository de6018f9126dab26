/** What the audit log needs from members: a member's current name (null when unknown). */
export interface MemberNames {
  nameOf(teamId: string, id: string): Promise<string | null>;
}
