// The in-memory twins of file storage, the job queue and mail against their ports' contracts (no servers).
import { memoryFileStorage } from '../../src/stores/memory/file-storage.js';
import { memoryJobQueues } from '../../src/stores/memory/job-queue.js';
import { memoryMailServer } from '../../src/stores/memory/mail.js';
import { fileStorageContract } from '../contract/file-storage.contract.js';
import { jobQueueContract } from '../contract/job-queue.contract.js';
import { mailContract } from '../contract/mail.contract.js';

fileStorageContract('memory', async () => ({ store: memoryFileStorage(), cleanup: async () => undefined }));
jobQueueContract('memory', async () => ({ open: memoryJobQueues(), cleanup: async () => undefined }));
mailContract('memory', async (auth) => {
  const server = memoryMailServer(auth);
  return {
    settings: server.settings,
    unreachable: { ...server.settings, port: server.settings.port + 1 },
    open: server.open,
    received: () => server.received.map((m) => ({ from: m.from, to: m.accepted, subject: m.subject, content: [m.text, m.html].join('\n') })),
    refuse: (decide) => {
      server.refuse = decide;
    },
    cleanup: async () => undefined,
  };
});
