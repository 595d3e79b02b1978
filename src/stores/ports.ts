// Store ports: what services need from storage, independent of MongoDB, Neo4j or Redis.
import type { Definition } from '../engine/model.js';
import type { Tuple } from '../engine/ids.js';

export interface AdminRecord { _id: string; username: string; passwordHash: string; createdAt: Date }
export interface AdminStore {
  findByUsername(username: string): Promise<AdminRecord | null>;
  findById(id: string): Promise<AdminRecord | null>;
  /** Creates the admin, or resets its password hash: the environment is authoritative. */
  upsert(username: string, passwordHash: string): Promise<AdminRecord>;
}

export interface ApiTokenRecord {
  _id: string; name: string; tokenPrefix: string; hash: string; adminId: string;
  createdAt: Date; expiresAt: Date; lastUsedAt: Date | null;
}
export interface ApiTokenStore {
  /** Null when the prefix is taken already (48 random bits: the caller draws another token). */
  insert(record: Omit<ApiTokenRecord, '_id'>): Promise<ApiTokenRecord | null>;
  findByPrefix(prefix: string): Promise<ApiTokenRecord[]>;
  listByAdmin(adminId: string): Promise<ApiTokenRecord[]>;
  findById(id: string): Promise<ApiTokenRecord | null>;
  delete(id: string): Promise<boolean>;
  touch(id: string, at: Date): Promise<void>;
}

export interface RelationRecord {
  _id: string; subject: string; relation: string; resource: string; computedTuple: string;
  subjectType: string; subjectId: string; resourceType: string; resourceId: string; createdAt: Date; revision: number;
}
export interface DefinitionRecord extends Definition { _id: string; version: number; createdAt: Date; updatedAt: Date }
export interface ListQuery { skip: number; limit: number; sort?: string; search?: string }
export interface Page<T> { items: T[]; count: number }

/**
 * One committed write. It names everything its appliers need (DESIGN.md section 5, write pipeline): the
 * tuples or grants it touched, or the type whose definition changed. Appliers derive the projection and
 * the index from MongoDB's current state for those names, so replaying an entry is always safe.
 */
export interface ChangeEntry {
  revision: number;
  kind: 'tuples' | 'grants' | 'definition' | 'reconstruct';
  op: 'add' | 'delete' | 'define' | 'remove' | 'soft' | 'hard';
  /** Tuple texts `S#r@O` (kind tuples or grants). */
  tuples?: string[];
  /** The definition's type name (kind definition). */
  type?: string;
  /** What a `define` wrote, and whether the type had no definition before (the change feed shows both). */
  definition?: { relations: Record<string, string[]>; permissions: Record<string, string[]>; version: number };
  created?: boolean;
  at: Date;
}
/** A committed entry that its appliers have not finished; `owner` is the process that wrote it. */
export interface PendingRecord { revision: number; owner: string; at: Date }

/** The change log and its outbox of pending entries. */
export interface ChangeLog {
  /**
   * Takes a fresh revision and records the entry: the commit point. Pending until `done`, so a crash
   * at any later step leaves the entry for the recovery loop. `pending: false` records history only.
   */
  commit(entry: Omit<ChangeEntry, 'revision' | 'at'>, owner: string, opts?: { pending?: boolean }): Promise<number>;
  entries(revisions: number[]): Promise<ChangeEntry[]>;
  /** Entries with revisions in (after, upTo], in revision order, at most `limit` (the change feed). */
  between(after: number, upTo: number, limit: number): Promise<ChangeEntry[]>;
  pending(): Promise<PendingRecord[]>;
  /** The lowest pending revision, or null when every committed entry has been applied. */
  oldestPending(): Promise<number | null>;
  done(revisions: number[]): Promise<void>;
  /** The highest revision taken so far. */
  latest(): Promise<number>;
  /** The latest revision and the oldest pending one from the fast copy; null when it cannot tell (it is then rebuilt). */
  frontier(): Promise<Frontier | null>;
  /** Drops from the fast copy the revisions up to `upTo` that have no durable pending record. */
  heal(upTo: number): Promise<void>;
}

export interface Frontier { latest: number; oldest: number | null }

/** Hands out revisions; the change log's unique `_id` is the final word, so a lost counter only costs a retry. */
export interface RevisionCounter {
  /** A revision that is not marked pending (history only). */
  next(): Promise<number>;
  /** A revision marked pending. */
  take(): Promise<number>;
  /** After the durable pending record is written: marks it again, in case a rebuild of a lost set read before. */
  confirm(revision: number): Promise<void>;
  /** Unmarks applied revisions. */
  settle(revisions: number[]): Promise<void>;
  /** The latest revision and the oldest marked pending; null when the pending set is not known complete. */
  frontier(): Promise<Frontier | null>;
  /** Marks up to revision `upTo`, at most `limit`: each a take-mark or a confirmation of its revision. */
  marked(upTo: number, limit: number): Promise<Array<{ member: string; revision: number }>>;
  /** Removes these marks (members returned by `marked`). */
  dropMarks(members: string[]): Promise<void>;
  /** Marks these durable pending revisions and declares the set complete. */
  rebuild(revisions: number[]): Promise<void>;
  /** Raises the counter to at least `floor` (after a restart or a lost Redis). */
  raise(floor: number): Promise<void>;
  current(): Promise<number>;
}

export interface AuthzStore {
  definitions(): Promise<DefinitionRecord[]>;
  findDefinition(idOrName: string): Promise<DefinitionRecord | null>;
  listDefinitions(q: ListQuery): Promise<Page<DefinitionRecord>>;
  /** Writes version `version` only if the stored one is lower (or absent): returns the stored record. */
  saveDefinition(def: Definition, version: number): Promise<{ record: DefinitionRecord; written: boolean }>;
  deleteDefinition(name: string): Promise<DefinitionRecord | null>;

  /** Unordered bulk insert, idempotent per tuple: the records (new or existing) and which were created now. */
  insertTuples(tuples: Tuple[], revision: number): Promise<{ records: RelationRecord[]; created: Set<string> }>;
  findTuple(id: string): Promise<RelationRecord | null>;
  deleteTuple(id: string): Promise<RelationRecord | null>;
  listTuples(q: ListQuery & { subjectType?: string; resourceType?: string }): Promise<Page<RelationRecord>>;
  /** Every stored tuple on one resource. */
  tuplesOn(resource: string): Promise<RelationRecord[]>;
  /** Every stored tuple whose subject is this object. */
  tuplesFrom(subject: string): Promise<RelationRecord[]>;
  /** Which of these tuple texts are stored now (by `_id`, so one indexed lookup per batch). */
  presentTuples(texts: string[]): Promise<Set<string>>;
  /** Every tuple, in batches of `batch`, grouped by resource type. */
  scanTuples(batch: number, upToRevision?: number): AsyncIterable<Tuple[]>;
  /** Deletes these tuples (as text) in one bulk write of `_id` deletes; how many were there. */
  deleteTupleTexts(texts: string[]): Promise<number>;
  countTuples(): Promise<number>;

  putGrant(g: Tuple, revision: number): Promise<{ created: boolean }>;
  deleteGrant(g: Tuple): Promise<boolean>;
  /** Every grant naming this object, as subject or as resource. */
  grantsInvolving(object: string): Promise<Tuple[]>;
  presentGrants(texts: string[]): Promise<Set<string>>;
  scanGrants(batch: number, upToRevision?: number): AsyncIterable<Tuple[]>;
  countGrants(): Promise<number>;
}

export interface RowRecord { action: string; public: boolean; keys: string[]; refs: string[] }
export interface ObjectRows { obj: string; type: string; rows: RowRecord[]; hash: string }
export interface FlatRecord { id: string; obj: string; public: boolean; keys: string[]; deps: string[]; hash: string }
export interface IndexRecords {
  gen: number;
  objectIndex: { id: string; public: boolean; keys: string[]; refs: Array<{ id: string; public: boolean; keys: string[] }> } | null;
  subjectIndex: { subject: string; keys: string[] } | null;
}

/** The precomputed index, by generation. Every write names its generation; `gen` 0 never exists. */
export interface IndexStore {
  meta(): Promise<{ gen: number; building: number | null }>;
  setBuilding(gen: number | null): Promise<void>;
  switchGeneration(gen: number): Promise<void>;
  check(subject: string, object: string, action: string): Promise<{ rowExists: boolean; allowed: boolean }>;
  records(subject: string, object: string, action: string): Promise<IndexRecords>;
  /** Replaces the rows of each object whose content hash changed; returns the objects that changed. */
  putRows(gen: number, objects: ObjectRows[]): Promise<string[]>;
  deleteRows(gen: number, objects: string[]): Promise<void>;
  /** Writes flats whose content hash changed, with their dependencies; returns how many changed. */
  /** Writes the flats whose content changed; returns their ids. */
  putFlats(gen: number, flats: FlatRecord[]): Promise<string[]>;
  /** Objects whose rows refer to any of these flats, at most `limit`. */
  rowsReferring(gen: number, flatIds: string[], limit: number): Promise<string[]>;
  /** Objects owning a flat that depends on any of `objects` (including the objects themselves). */
  flatsDependingOn(gen: number, objects: string[]): Promise<string[]>;
  /** Which of `objects` already have flats. */
  flattened(gen: number, objects: string[]): Promise<Set<string>>;
  /** Adds (present) or removes the key a subject holds through one tuple or grant. */
  syncHolds(gen: number, items: HoldChange[]): Promise<void>;
  /** One page, in id order, of the objects of `type` on which `subject` has `action`. */
  listObjects(subject: string, action: string, type: string, skip: number, limit: number): Promise<string[]>;
  countObjects(subject: string, action: string, type: string, pivot: string): Promise<ListCount>;
  /** One page, in id order, of the subjects of `subjectType` holding `action` on `object`. */
  listSubjects(object: string, action: string, subjectType: string, skip: number, limit: number): Promise<string[]>;
  countSubjects(object: string, action: string, subjectType: string, pivot: string): Promise<ListCount & { public: boolean }>;
  dropGeneration(gen: number): Promise<number>;
}
/** A list's length, how many of its ids sort before `pivot`, and whether `pivot` is one of them. */
export interface ListCount { count: number; below: number; has: boolean }
export interface HoldChange { subject: string; key: string; present: boolean }

/** One tuple or grant edge of the projection, with whether MongoDB has it now. */
export interface EdgeChange { tuple: Tuple; grant: boolean; present: boolean }

/** The tuple graph projected into Neo4j: TUPLE edges for tuples, GRANT edges for direct grants. */
export interface GraphStore {
  /** MERGEs present edges and deletes absent ones; `mark` tags the edges a rebuild has seen. */
  sync(changes: EdgeChange[], mark?: string): Promise<void>;
  /** Tuples and grants on any of the resources. */
  on(objects: string[]): Promise<{ tuples: Tuple[]; grants: Tuple[] }>;
  /** Which objects are the subject of a tuple or grant whose `Type#name` is in their item's lists. */
  namedAsSubject(items: Array<{ key: string; tuples: string[]; grants: string[] }>): Promise<Set<string>>;
  /** Tuples and grants whose resource or subject has this type (definition changes). */
  touchingType(type: string): Promise<{ tuples: Tuple[]; grants: Tuple[] }>;
  /** TUPLE (or GRANT) edges after `after` in key order, with whether a rebuild tagged them with `mark` (sweeps). */
  edgesAfter(grant: boolean, after: string, limit: number, mark: string): Promise<Array<{ key: string; marked: boolean }>>;
  /** Tuples on paths from subject to resource (bounded), for explanations. */
  tuplesBetween(subject: string, resource: string): Promise<Tuple[]>;
  /** Valid direct tuples or grants of `subject` on `resource` (admin scope rule, evaluate). */
  direct(subject: string, resource: string): Promise<{ tuples: Tuple[]; grants: Tuple[] }>;
}

/** What a rebuild request asks for, and how far a running one has got. */
export interface RebuildRequest { soft: boolean; revision: number; at: Date }
export interface RebuildRun extends RebuildRequest {
  owner: string; gen: number; startedAt: Date; phase: string; done: number; total: number;
}
export interface RebuildState { requested: RebuildRequest | null; running: RebuildRun | null }
export interface RebuildStateStore {
  get(): Promise<RebuildState>;
  put(state: RebuildState): Promise<void>;
}

/**
 * Tuples and grants deleted lately. Adds are applied as "stored" without reading MongoDB back, which is
 * right unless a delete of the same tuple raced with the add; a delete marks its tuple here before it is
 * applied, so the applier reads MongoDB for exactly those.
 */
export interface DeletionHints {
  mark(texts: string[]): Promise<void>;
  hinted(texts: string[]): Promise<Set<string>>;
}

/** Client users (the authentication module). Email is stored lowercased and is unique. */
export interface UserRecord { _id: string; email: string; passwordHash: string; createdAt: Date }
export interface UserStore {
  /** Null when the email is taken. */
  insert(user: UserRecord): Promise<UserRecord | null>;
  findByEmail(email: string): Promise<UserRecord | null>;
  findById(id: string): Promise<UserRecord | null>;
  findByIds(ids: string[]): Promise<UserRecord[]>;
}

/** A refresh token, stored by the hash of its value; rotating it marks it used, and every token of a login shares a family. */
export interface RefreshRecord { _id: string; userId: string; family: string; expiresAt: Date; used: boolean }
export interface RefreshTokenStore {
  insert(record: RefreshRecord): Promise<void>;
  /**
   * Claims a live token for one renewal. `reused` when it was claimed already (by an earlier or a racing
   * renewal); null when no such token exists.
   */
  use(hash: string): Promise<{ record: RefreshRecord; reused: boolean } | null>;
  /** Deletes a token (a renewal whose family was revoked meanwhile gives its new token back). */
  remove(hash: string): Promise<void>;
  /** Records the family as revoked for good, then deletes its live tokens. */
  revokeFamily(family: string): Promise<void>;
  familyRevoked(family: string): Promise<boolean>;
}

/** Config module overrides by module name. */
export interface ConfigStore {
  all(): Promise<Record<string, Record<string, unknown>>>;
  get(module: string): Promise<Record<string, unknown> | null>;
  put(module: string, value: Record<string, unknown>): Promise<void>;
}

/** A change counter shared by all processes; `read` is null when it cannot be read (then nothing cached is trusted). */
export interface Epoch {
  read(): Promise<string | null>;
  bump(): Promise<void>;
}

/** Access tokens revoked before they expire (logout, refresh-token reuse). */
export interface TokenDenyList {
  deny(id: string, until: Date): Promise<void>;
  /** Whether any of these ids is denied (one round trip). */
  denied(ids: string[]): Promise<boolean>;
}

export interface TeamRecord { _id: string; name: string; parentTeam?: string; createdBy: string; createdAt: Date }
export interface InvitationRecord { _id: string; teamId: string; email: string; invitedBy: string; expiresAt: Date }
export interface TeamStore {
  insert(team: TeamRecord): Promise<void>;
  findById(id: string): Promise<TeamRecord | null>;
  findByIds(ids: string[]): Promise<TeamRecord[]>;
  insertInvitation(inv: InvitationRecord): Promise<void>;
  findInvitation(hash: string): Promise<InvitationRecord | null>;
  /** Removes the invitation; false when another use removed it first (an invitation is single use). */
  deleteInvitation(hash: string): Promise<boolean>;
}

/** A database schema: its documents live in `collectionName`; `authorization.enabled` registers a definition. */
export interface SchemaRecord {
  _id: string; name: string; collectionName: string; fields: import('../engine/schema-fields.js').Fields;
  serviceOptions: { authorization: { enabled: boolean } }; createdAt: Date; updatedAt: Date;
}
/** A collection found by introspection, waiting to be adopted as a schema. */
export interface IntrospectedRecord { _id: string; collectionName: string; fields: import('../engine/schema-fields.js').Fields; documents: number; foundAt: Date }
export interface SchemaStore {
  list(skip: number, limit: number): Promise<Page<SchemaRecord>>;
  all(): Promise<SchemaRecord[]>;
  findByName(name: string): Promise<SchemaRecord | null>;
  /** Null when the name is taken. */
  insert(s: SchemaRecord): Promise<SchemaRecord | null>;
  replace(s: SchemaRecord): Promise<void>;
  /** Every collection in the database (introspection). */
  collections(): Promise<string[]>;
  putIntrospected(list: IntrospectedRecord[]): Promise<void>;
  introspected(): Promise<IntrospectedRecord[]>;
  dropIntrospected(ids: string[]): Promise<void>;
}

export type Doc = Record<string, unknown> & { _id: string };
export interface DocumentStore {
  insert(collection: string, doc: Doc): Promise<void>;
  findById(collection: string, id: string): Promise<Doc | null>;
  findByIds(collection: string, ids: string[]): Promise<Doc[]>;
  /** Sets fields; the updated document, or null when it is gone. */
  update(collection: string, id: string, set: Record<string, unknown>): Promise<Doc | null>;
  delete(collection: string, id: string): Promise<Doc | null>;
  find(collection: string, filter: Record<string, unknown>, sort: Record<string, 1 | -1>, skip: number, limit: number): Promise<Doc[]>;
  count(collection: string, filter: Record<string, unknown>): Promise<number>;
  /** Samples documents (introspection). */
  sample(collection: string, n: number): Promise<Doc[]>;
  uniqueIndex(collection: string, field: string): Promise<void>;
}

/** A named access-list view: the objects of a type a subject may act on, as computed at `revision`. */
export interface AccessViewRecord {
  _id: string; subject: string; permission: string; resourceType: string; objects: string[]; revision: number;
  createdAt: Date; refreshedAt: Date;
}
export interface AccessViewStore {
  /** Creates or replaces the view named `_id`. */
  put(view: AccessViewRecord): Promise<void>;
  get(name: string): Promise<AccessViewRecord | null>;
  /** Every view's definition, without its objects. */
  list(skip: number, limit: number): Promise<Page<Omit<AccessViewRecord, 'objects'> & { count: number }>>;
  delete(name: string): Promise<boolean>;
}
