// Teams and their single-use invitations.
export interface TeamRecord {
  _id: string;
  name: string;
  parentTeam?: string;
  createdBy: string;
  createdAt: Date;
}
export interface InvitationRecord {
  _id: string;
  teamId: string;
  email: string;
  invitedBy: string;
  expiresAt: Date;
}
export interface TeamStore {
  insert(team: TeamRecord): Promise<void>;
  findById(id: string): Promise<TeamRecord | null>;
  findByIds(ids: string[]): Promise<TeamRecord[]>;
  insertInvitation(inv: InvitationRecord): Promise<void>;
  findInvitation(hash: string): Promise<InvitationRecord | null>;
  /** Removes the invitation; false when another use removed it first (an invitation is single use). */
  deleteInvitation(hash: string): Promise<boolean>;
}
