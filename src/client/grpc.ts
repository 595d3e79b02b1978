// A typed gRPC client for custom modules (contract 4.5): checks, relations, grants, definitions, views and the change feed.
import {
  Metadata,
  credentials,
  loadPackageDefinition,
  type Client,
  type ClientReadableStream,
  type GrpcObject,
  type ServiceClientConstructor,
  type ServiceError,
} from '@grpc/grpc-js';
import { fromNames, toNames } from '../surfaces/grpc/names.js';
import { loadDefinition } from '../surfaces/grpc/proto.js';
import type {
  AccessView,
  CanRequest,
  CanResponse,
  Change,
  CheckItem,
  CreateRelationResponse,
  CreateRelationsResponse,
  DefinitionInput,
  DeleteRelationResponse,
  EvaluateResponse,
  ListRequest,
  PermissionGrant,
  ReadOptions,
  ReadRelationsRequest,
  ReadRelationsResponse,
  Relation,
  RelationUpdate,
  ResourceDefinition,
  WatchResponse,
  WriteRelationsResponse,
  WriteResourceDefinitionResponse,
} from './grpc-types.js';

export type * from './grpc-types.js';

export interface AuthzGraphClientOptions {
  /** host:port of the service's gRPC listener (GRPC_PORT, default 55152). */
  address: string;
  /** An API token (recommended) or an admin JWT, sent as `authorization: Bearer …`. */
  token?: string;
  masterkey?: string;
}

/** A refused call: the gRPC status code, and the service's catalog code (`RELATION_NOT_ALLOWED`, ...). */
export class AuthzGraphError extends Error {
  constructor(readonly grpcCode: number, readonly code: string, message: string, readonly details: unknown[]) {
    super(message);
  }
}

type Msg = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Unary = (req: Msg, md: Metadata, cb: (e: ServiceError | null, r: Msg) => void) => void;
type Stream = (req: Msg, md: Metadata) => ClientReadableStream<Msg>;

const asError = (e: ServiceError) => {
  const raw = e.metadata?.get('error-details-bin')[0];
  let details: unknown[] = [];
  try {
    details = raw ? JSON.parse(Buffer.from(raw as Buffer).toString('utf8')) as unknown[] : [];
  } catch { /* not ours: no details */ }
  return new AuthzGraphError(e.code, String(e.metadata?.get('error-code')[0] ?? 'UNKNOWN'), e.details || e.message, details);
};
const definition = (d: Msg): ResourceDefinition => ({ ...d, relations: fromNames(d.relations), permissions: fromNames(d.permissions) } as ResourceDefinition);

export class AuthzGraphClient {
  /** The generated grpc-js client, for calls this class does not wrap. */
  readonly raw: Client & Record<string, Unary | Stream>;
  private readonly metadata = new Metadata();

  constructor(options: AuthzGraphClientOptions) {
    const pkg = loadPackageDefinition(loadDefinition()) as unknown as { authzgraph: { v1: GrpcObject } };
    const Ctor = pkg.authzgraph.v1.AuthzGraph as ServiceClientConstructor;
    this.raw = new Ctor(options.address, credentials.createInsecure()) as AuthzGraphClient['raw'];
    if (options.token) this.metadata.set('authorization', `Bearer ${options.token}`);
    if (options.masterkey) this.metadata.set('masterkey', options.masterkey);
  }

  private call<T>(method: string, req: Msg): Promise<T> {
    return new Promise((resolve, reject) => {
      (this.raw[method] as Unary).call(this.raw, req, this.metadata, (e, r) => (e ? reject(asError(e)) : resolve(r as T)));
    });
  }

  private async *stream<T>(method: string, req: Msg, signal?: AbortSignal): AsyncGenerator<T> {
    const s = (this.raw[method] as Stream).call(this.raw, req, this.metadata);
    const cancel = () => s.cancel();
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      for await (const m of s) yield m as T;
    } catch (e) {
      if ((e as ServiceError).code === 1 && signal?.aborted) return; // cancelled by us
      throw asError(e as ServiceError);
    } finally {
      signal?.removeEventListener('abort', cancel);
      s.cancel();
    }
  }

  async can(req: CanRequest): Promise<boolean> {
    return (await this.check(req)).allowed;
  }
  /** `can` with the reason a deny names an unknown type or permission. */
  check(req: CanRequest): Promise<CanResponse> {
    return this.call('Can', req);
  }
  async checkBulk(items: CheckItem[], opts: ReadOptions = {}): Promise<boolean[]> {
    return (await this.checkBulkAnswers(items, opts)).map((r) => r.allowed);
  }
  async checkBulkAnswers(items: CheckItem[], opts: ReadOptions = {}): Promise<CanResponse[]> {
    return (await this.call<{ results: CanResponse[] }>('CheckBulk', { items, ...opts })).results;
  }
  evaluate(req: CanRequest): Promise<EvaluateResponse> {
    return this.call('Evaluate', req);
  }
  async *lookupResources(req: { subject: string; permission: string; resourceType: string } & ReadOptions, signal?: AbortSignal): AsyncGenerator<string> {
    for await (const m of this.stream<{ object: string }>('LookupResources', req, signal)) yield m.object;
  }
  async *lookupSubjects(req: { permission: string; resource: string; subjectType: string } & ReadOptions, signal?: AbortSignal): AsyncGenerator<string> {
    for await (const m of this.stream<{ subject: string }>('LookupSubjects', req, signal)) yield m.subject;
  }

  createRelation(subject: string, relation: string, resource: string): Promise<CreateRelationResponse> {
    return this.call('CreateRelation', { subject, relation, resource });
  }
  createRelations(subject: string, relation: string, resources: string[]): Promise<CreateRelationsResponse> {
    return this.call('CreateRelations', { subject, relation, resources });
  }
  /** Up to 1000 creates and deletes of any tuples at one revision; nothing is written when one is refused. */
  writeRelations(updates: RelationUpdate[]): Promise<WriteRelationsResponse> {
    return this.call('WriteRelations', { updates });
  }
  /** `id` as CreateRelation or ReadRelations give it. */
  deleteRelation(id: string): Promise<DeleteRelationResponse> {
    return this.call('DeleteRelation', { id });
  }
  readRelations(req: ReadRelationsRequest = {}): Promise<ReadRelationsResponse> {
    return this.call('ReadRelations', req);
  }
  grantPermission(g: PermissionGrant): Promise<{ created: boolean; revision: number }> {
    return this.call('GrantPermission', g);
  }
  revokePermission(g: PermissionGrant): Promise<{ revision: number }> {
    return this.call('RevokePermission', g);
  }

  private async write(method: string, d: DefinitionInput): Promise<WriteResourceDefinitionResponse> {
    const r = await this.call<Msg>(method, { ...d, relations: toNames(d.relations), permissions: toNames(d.permissions) });
    return { ...r, resourceDefinition: definition(r.resourceDefinition) } as WriteResourceDefinitionResponse;
  }
  createResourceDefinition(d: DefinitionInput) {
    return this.write('CreateResourceDefinition', d);
  }
  /** `d.name` may be the definition's name or id. */
  updateResourceDefinition(d: DefinitionInput) {
    return this.write('UpdateResourceDefinition', d);
  }
  async getResourceDefinition(id: string): Promise<ResourceDefinition> {
    return definition(await this.call('GetResourceDefinition', { id }));
  }
  async listResourceDefinitions(req: ListRequest = {}): Promise<{ resources: ResourceDefinition[]; count: number }> {
    const r = await this.call<{ resources: Msg[]; count: number }>('ListResourceDefinitions', req);
    return { resources: r.resources.map(definition), count: r.count };
  }
  async deleteResourceDefinition(id: string): Promise<{ deleted: ResourceDefinition; revision: number }> {
    const r = await this.call<{ deleted: Msg; revision: number }>('DeleteResourceDefinition', { id });
    return { deleted: definition(r.deleted), revision: r.revision };
  }

  createAccessView(v: { name: string; subject: string; permission: string; resourceType: string }): Promise<AccessView> {
    return this.call('CreateAccessView', v);
  }
  listAccessViews(req: { skip?: number; limit?: number } = {}): Promise<{ views: AccessView[]; count: number }> {
    return this.call('ListAccessViews', req);
  }
  readAccessView(name: string, skip = 0, limit = 100): Promise<{ view: AccessView; objects: string[] }> {
    return this.call('ReadAccessView', { name, skip, limit });
  }
  refreshAccessView(name: string): Promise<AccessView> {
    return this.call('RefreshAccessView', { name });
  }
  deleteAccessView(name: string): Promise<{ deleted: string }> {
    return this.call('DeleteAccessView', { name });
  }

  /** The change feed after `afterRevision`, then live; resume with the last `nextRevision` received. */
  async *watch(afterRevision = 0, signal?: AbortSignal): AsyncGenerator<WatchResponse> {
    for await (const m of this.stream<{ changes: Msg[]; nextRevision: number }>('Watch', { afterRevision }, signal)) {
      const changes = m.changes.map((c) =>
        ({
          ...c,
          definition: c.definition ? { ...c.definition, relations: fromNames(c.definition.relations), permissions: fromNames(c.definition.permissions) } : null,
        }) as Change
      );
      yield { changes, nextRevision: m.nextRevision };
    }
  }

  close(): void {
    this.raw.close();
  }
}

export type { Relation };
