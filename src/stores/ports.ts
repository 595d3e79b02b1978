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
  insert(record: Omit<ApiTokenRecord, '_id'>): Promise<ApiTokenRecord>;
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

export interface ChangeEntry { revision: number; kind: 'tuple' | 'grant' | 'definition'; op: 'add' | 'delete' | 'define'; key: string; at: Date }

export interface AuthzStore {
  nextRevision(entry: Omit<ChangeEntry, 'revision' | 'at'>): Promise<number>;
  currentRevision(): Promise<number>;
  changesSince(revision: number): Promise<ChangeEntry[]>;

  definitions(): Promise<DefinitionRecord[]>;
  findDefinition(idOrName: string): Promise<DefinitionRecord | null>;
  listDefinitions(q: ListQuery): Promise<Page<DefinitionRecord>>;
  /** Writes version `version` only if the stored one is lower (or absent): returns the stored record. */
  saveDefinition(def: Definition, version: number): Promise<{ record: DefinitionRecord; written: boolean }>;
  deleteDefinition(name: string): Promise<DefinitionRecord | null>;

  /** Idempotent: returns the record and whether it was created now. */
  putTuple(t: Tuple, revision: number): Promise<{ record: RelationRecord; created: boolean }>;
  findTuple(id: string): Promise<RelationRecord | null>;
  findTupleByText(text: string): Promise<RelationRecord | null>;
  deleteTuple(id: string): Promise<RelationRecord | null>;
  listTuples(q: ListQuery & { subjectType?: string; resourceType?: string }): Promise<Page<RelationRecord>>;
  tuplesOfType(type: string, side: 'subject' | 'resource'): Promise<Tuple[]>;
  /** Every grant with any of the objects as subject or resource (rebuild batches). */
  grantsTouching(objects: string[]): Promise<Tuple[]>;
  /** Every tuple, in batches of `batch`, grouped by resource type. */
  scanTuples(batch: number): AsyncIterable<Tuple[]>;
  countTuples(): Promise<number>;

  putGrant(g: Tuple, revision: number): Promise<{ created: boolean }>;
  deleteGrant(g: Tuple): Promise<boolean>;
  grantsOfSubject(subject: string): Promise<Tuple[]>;
  grantsOnResource(resource: string): Promise<Tuple[]>;
  grantsOfType(type: string): Promise<Tuple[]>;
  scanGrants(batch: number): AsyncIterable<Tuple[]>;
}

export interface RowRecord { action: string; public: boolean; keys: string[]; refs: string[] }
export interface ObjectRows { obj: string; type: string; rows: RowRecord[] }
export interface FlatRecord { id: string; public: boolean; keys: string[]; hash: string }
export interface IndexRecords {
  gen: number;
  objectIndex: { id: string; public: boolean; keys: string[]; refs: Array<{ id: string; public: boolean; keys: string[] }> } | null;
  subjectIndex: { subject: string; keys: string[] } | null;
}

/** The precomputed index, by generation. */
export interface IndexStore {
  meta(): Promise<{ gen: number; building: number | null }>;
  setBuilding(gen: number | null): Promise<void>;
  switchGeneration(gen: number): Promise<void>;
  check(subject: string, object: string, action: string): Promise<{ rowExists: boolean; allowed: boolean }>;
  records(subject: string, object: string, action: string): Promise<IndexRecords>;
  putRows(gen: number, objects: ObjectRows[]): Promise<void>;
  deleteRows(gen: number, objects: string[]): Promise<void>;
  /** Returns how many flats changed content. */
  putFlats(gen: number, flats: FlatRecord[]): Promise<number>;
  putActors(gen: number, actors: Array<{ subject: string; keys: string[] }>): Promise<void>;
  listObjects(subject: string, action: string, type: string, skip: number, limit: number): Promise<{ objects: string[]; count: number }>;
  listSubjects(object: string, action: string, subjectType: string): Promise<{ subjects: string[]; public: boolean }>;
  dropGeneration(gen: number): Promise<number>;
}

/** The tuple graph projected into Neo4j. */
export interface GraphStore {
  putTuple(t: Tuple): Promise<void>;
  /** Re-projects many tuples at once (reconstruct). */
  putTuples(tuples: Tuple[]): Promise<void>;
  deleteTuple(t: Tuple): Promise<void>;
  /** Every projected tuple on any of the resources, or of any of the subjects (indexed reads for the indexer). */
  tuplesOnResources(objects: string[]): Promise<Tuple[]>;
  tuplesOfSubjects(objects: string[]): Promise<Tuple[]>;
  /** Tuples on paths from subject to resource (bounded), for explanations. */
  tuplesBetween(subject: string, resource: string): Promise<Tuple[]>;
}
