// Every port the modules receive, in one bag: the real adapters (src/stores/stores.ts) and the in-memory twins
// (src/stores/memory/stores.ts) both build it, so modules and services never know which they run on.
import type { AccessViewStore } from './access-views.js';
import type { AdminStore } from './admins.js';
import type { ApiTokenStore } from './api-tokens.js';
import type { ChangeLog } from './change-log.js';
import type { ChatChannel } from './chat-channel.js';
import type { ChatStore } from './chat.js';
import type { CommunicationStores } from './communications.js';
import type { ConfigStore } from './config.js';
import type { EndpointStore } from './custom-endpoints.js';
import type { DecisionStore } from './decision-cache.js';
import type { DefinitionStore } from './definitions.js';
import type { DeletionHints } from './deletion-hints.js';
import type { DatabaseOptions, DocumentStore } from './documents.js';
import type { Epoch } from './epoch.js';
import type { FileRecordStore } from './file-records.js';
import type { OpenFileStorage } from './file-storage.js';
import type { GrantStore } from './grants.js';
import type { GraphStore } from './graph.js';
import type { IndexStore } from './index-store.js';
import type { Invalidation, InvalidationBusMember } from './invalidation-bus.js';
import type { OpenJobQueue } from './job-queue.js';
import type { Heartbeat, Lease } from './lease.js';
import type { OpenMailer } from './mail.js';
import type { RateCounter } from './rate-limits.js';
import type { RebuildStateStore } from './rebuild-state.js';
import type { RefreshTokenStore } from './refresh-tokens.js';
import type { ReindexState } from './reindex-state.js';
import type { SchemaStore } from './schemas.js';
import type { TeamStore } from './teams.js';
import type { TokenDenyList } from './token-deny-list.js';
import type { TupleListing } from './tuple-listing.js';
import type { TupleReads, TupleWrites } from './tuples.js';
import type { UserStore } from './users.js';

export interface Stores {
  admins: AdminStore;
  apiTokens: ApiTokenStore;
  authz: DefinitionStore & TupleReads & TupleWrites & GrantStore;
  changeLog: ChangeLog;
  rebuildState: RebuildStateStore;
  accessViews: AccessViewStore;
  users: UserStore;
  refreshTokens: RefreshTokenStore;
  teams: TeamStore;
  schemas: SchemaStore;
  documents: DocumentStore;
  /** Custom endpoint definitions of the database module. */
  customEndpoints: EndpointStore;
  files: FileRecordStore;
  /** Where file bytes go: local disk or an S3 bucket, as the `storage` module's config names them. */
  fileStorage: OpenFileStorage;
  config: ConfigStore;
  /** Push device tokens, notifications and the outbox of sent messages. */
  communications: CommunicationStores;
  /** Job queues; a handle connects when it is opened. */
  jobQueue: OpenJobQueue;
  /** Email sent through an SMTP server. */
  mailer: OpenMailer;
  /** Collections of the service itself, which introspection never offers as schemas. */
  systemCollections: Set<string>;
  chat: ChatStore;
  index: IndexStore;
  graph: GraphStore;
  /** Pages and counts of the admin list of relations, from the projection's indexes. */
  tupleListing: TupleListing;
  hints: DeletionHints;
  /** Definition changes still being re-indexed, so every process answers their types from the projection. */
  reindexState: ReindexState;
  decisionStore: DecisionStore;
  rateCounter: RateCounter;
  denyList: TokenDenyList;
  epoch(name: string): Epoch;
  lease(name: string, ttlMs?: number): Lease;
  /** How many partitions index work is split into: `wanted`, unless a process on this store fixed another number. */
  indexPartitions(wanted: number): Promise<number>;
  /** This process's heartbeat, alive for `ttlMs` after each beat: one per process (later calls get the first). */
  heartbeat(ttlMs?: number): Heartbeat;
  bus(apply: (inv: Invalidation) => void, reset: () => void): InvalidationBusMember;
  chatChannel(onMessage: (message: string) => void): ChatChannel;
  /** Applies the `database` module's config (read preference, concerns) to document calls from the next on. */
  tuneDatabase(options: DatabaseOptions): void;
  /** Readiness checks by store name (redis only when asked: a deployment may run without needing it ready). */
  probes(checkRedis: boolean): Record<string, () => Promise<void>>;
  close(): Promise<void>;
}
