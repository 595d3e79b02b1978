// The messages of proto/authzgraph/v1/authzgraph.proto as the client sees them (fields in camelCase, int64 as numbers).
export type Consistency = 'CONSISTENCY_UNSPECIFIED' | 'MINIMIZE_LATENCY' | 'AT_LEAST_AS_FRESH' | 'FULLY_CONSISTENT';
export interface ReadOptions {
  consistency?: Consistency;
  revision?: number;
}
export interface CheckItem {
  subject: string;
  permission: string;
  resource: string;
  scope?: string;
}
export interface CanRequest extends CheckItem, ReadOptions {}
/** Set on a deny whose type or permission the model lacks; `didYouMean` is empty when no name is near. */
export interface CheckReason {
  code: 'UNKNOWN_TYPE' | 'UNKNOWN_PERMISSION';
  message: string;
  didYouMean: string;
}
export interface CanResponse {
  allowed: boolean;
  reason?: CheckReason | null;
}
export interface EvaluateResponse {
  allowed: boolean;
  assigned: boolean;
  reason: string;
  paths: string[];
  subjectIndexJson: string;
  objectIndexJson: string;
  reasonCode: '' | CheckReason['code'];
  didYouMean: string;
}
export interface Relation {
  id: string;
  subject: string;
  relation: string;
  resource: string;
  computedTuple: string;
  revision: number;
  createdAt: string;
}
export interface CreateRelationResponse {
  relation: Relation;
  created: boolean;
  revision: number;
}
export interface CreateRelationsResponse {
  relations: Relation[];
  created: number;
  existing: number;
  revision: number;
}
export interface RelationUpdate {
  operation: 'OPERATION_CREATE' | 'OPERATION_DELETE';
  subject: string;
  relation: string;
  resource: string;
}
export interface WriteRelationsResponse {
  created: number;
  existing: number;
  deleted: number;
  missing: number;
  revision: number;
}
export interface DeleteRelationResponse {
  deleted: Relation;
  revision: number;
}
export interface ReadRelationsRequest extends ReadOptions {
  skip?: number;
  limit?: number;
  search?: string;
  subjectType?: string;
  resourceType?: string;
  sort?: string;
}
export interface ReadRelationsResponse {
  relations: Relation[];
  count: number;
  countCapped: boolean;
}
export interface PermissionGrant {
  subject: string;
  permission: string;
  resource: string;
}
export type Names = Record<string, string[]>;
export interface ResourceDefinition {
  id: string;
  name: string;
  relations: Names;
  permissions: Names;
  version: number;
  createdAt: string;
  updatedAt: string;
}
export interface DefinitionInput {
  name: string;
  relations?: Names;
  permissions?: Names;
  version?: number;
}
export interface WriteResourceDefinitionResponse {
  status: 'processed' | 'acknowledged' | 'ignored';
  resourceDefinition: ResourceDefinition;
  revision: number;
}
export interface ListRequest {
  skip?: number;
  limit?: number;
  search?: string;
  sort?: string;
}
export interface AccessView {
  name: string;
  subject: string;
  permission: string;
  resourceType: string;
  count: number;
  revision: number;
  createdAt: string;
  refreshedAt: string;
}
export interface Change {
  revision: number;
  kind: 'relation' | 'grant' | 'definition';
  op: 'create' | 'delete' | 'update';
  tuple: string;
  definition: { name: string; relations: Names; permissions: Names; version: number } | null;
  at: string;
}
export interface WatchResponse {
  changes: Change[];
  nextRevision: number;
}
