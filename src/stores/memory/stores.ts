// The in-memory composition: every port built on the twins, so the whole service runs with no server (the fast tier).
// A backend stands for one set of servers; several services built on one backend behave like processes sharing them.
import { randomUUID } from 'node:crypto';
import type { Stores } from '../ports/stores.js';
import { memoryAccessViewStore } from './access-views.js';
import { memoryAdminStore } from './admins.js';
import { memoryApiTokenStore } from './api-tokens.js';
import { memoryAuthzStore } from './authz.js';
import { memoryChangeLog, memoryChangeLogState } from './change-log.js';
import { memoryChatChannel } from './chat-channel.js';
import { memoryChatStore } from './chat.js';
import { memoryCommunicationStores } from './communications.js';
import { memoryConfigStore } from './config.js';
import { memoryEndpointStore } from './custom-endpoints.js';
import { memoryDecisionStore } from './decision-cache.js';
import { memoryDeletionHints } from './deletion-hints.js';
import { memoryDocumentStore } from './documents.js';
import { memoryEpoch } from './epoch.js';
import { memoryFileRecordStore } from './file-records.js';
import { memoryFileStorages } from './file-storage.js';
import { MemoryGraph } from './graph-state.js';
import { memoryGraphStore } from './graph.js';
import { MemoryHub } from './hub.js';
import { memoryFixedPartitions } from './index-partitions.js';
import { memoryIndexStore } from './index-store.js';
import { MemoryInvalidationBus } from './invalidation-bus.js';
import { memoryJobQueues } from './job-queue.js';
import { MemoryHeartbeat, MemoryLease } from './lease.js';
import { memoryMailServer, type MemoryMailServer } from './mail.js';
import { memoryRateCounter } from './rate-limits.js';
import { memoryRebuildState } from './rebuild-state.js';
import { memoryRefreshTokenStore } from './refresh-tokens.js';
import { memoryReindexState } from './reindex-state.js';
import { memoryRevisionCounter } from './revision-counter.js';
import { memorySchemaStore } from './schemas.js';
import { memoryTeamStore } from './teams.js';
import { memoryTokenDenyList } from './token-deny-list.js';
import { memoryTupleListing } from './tuple-listing.js';
import { memoryUserStore } from './users.js';

/** What the servers hold: the MongoDB-like stores, the graph and index, Redis (the hub), queues, files and a mail server. */
export function memoryBackend() {
  const documents = memoryDocumentStore();
  const graph = new MemoryGraph();
  return {
    hub: new MemoryHub(),
    /** The mail server the service's mailers reach when the config points at `mail.settings` (host memory.invalid). */
    mail: memoryMailServer() as MemoryMailServer,
    shared: {
      admins: memoryAdminStore(),
      apiTokens: memoryApiTokenStore(),
      authz: memoryAuthzStore(),
      rebuildState: memoryRebuildState(),
      accessViews: memoryAccessViewStore(),
      users: memoryUserStore(),
      refreshTokens: memoryRefreshTokenStore(),
      teams: memoryTeamStore(),
      schemas: memorySchemaStore(() => documents.collections()),
      documents,
      customEndpoints: memoryEndpointStore(),
      files: memoryFileRecordStore(),
      fileStorage: memoryFileStorages(),
      config: memoryConfigStore(),
      communications: memoryCommunicationStores(),
      jobQueue: memoryJobQueues(),
      chat: memoryChatStore(),
      index: memoryIndexStore(graph),
      graph: memoryGraphStore(graph),
      tupleListing: memoryTupleListing(graph),
    },
    changeLogState: memoryChangeLogState(),
  };
}
export type MemoryBackend = ReturnType<typeof memoryBackend>;

/** One process's stores on `backend`; `prefix` plays REDIS_PREFIX (processes on other prefixes share nothing in Redis). */
export function memoryStores(backend: MemoryBackend = memoryBackend(), prefix = 'authz'): Stores {
  const { hub } = backend;
  let beat: MemoryHeartbeat | undefined;
  return {
    ...backend.shared,
    changeLog: memoryChangeLog(memoryRevisionCounter(hub, prefix), backend.changeLogState),
    mailer: backend.mail.open,
    // Introspection lists only the documents' own collections here: the service's collections live elsewhere.
    systemCollections: new Set<string>(),
    hints: memoryDeletionHints(hub, prefix),
    reindexState: memoryReindexState(hub, prefix),
    decisionStore: memoryDecisionStore(hub, prefix),
    rateCounter: memoryRateCounter(hub, prefix),
    denyList: memoryTokenDenyList(hub, prefix),
    epoch: (name) => memoryEpoch(hub, `${prefix}:ep:~${name}`),
    lease: (name, ttlMs) => new MemoryLease(hub, `${prefix}:lease:${name}`, ttlMs),
    indexPartitions: (wanted) => memoryFixedPartitions(hub, prefix, wanted),
    heartbeat: (ttlMs) => (beat ??= new MemoryHeartbeat(hub, prefix, randomUUID(), ttlMs)),
    bus: (apply, reset) => new MemoryInvalidationBus(hub, prefix, apply, reset),
    chatChannel: (onMessage) => memoryChatChannel(hub, prefix, onMessage),
    // One copy of every document: there is no read preference or write concern to apply.
    tuneDatabase: () => undefined,
    probes: () => ({}),
    async close() {/* nothing connected */},
  };
}
