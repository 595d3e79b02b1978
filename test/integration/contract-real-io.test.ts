// The real adapters of file storage (local disk, S3 on gofakes3), the job queue (BullMQ on the test Redis) and mail
// (nodemailer to a real SMTP server) against their ports' contracts: the same suites the in-memory twins pass.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localFileStorage } from '../../src/stores/files/local.js';
import { s3FileStorage } from '../../src/stores/files/s3.js';
import { smtpMailer } from '../../src/stores/mail/smtp.js';
import { bullmqJobQueues } from '../../src/stores/queue/bullmq.js';
import { fileStorageContract } from '../contract/file-storage.contract.js';
import { jobQueueContract } from '../contract/job-queue.contract.js';
import { mailContract, type ReceivedMail } from '../contract/mail.contract.js';
import { freePort } from '../support/free-port.js';
import { startFakeS3 } from '../support/gofakes3.js';
import { startSmtp, type Received } from '../support/smtp.js';

fileStorageContract('local disk', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'authz-contract-files-'));
  return { store: localFileStorage(dir), cleanup: () => rm(dir, { recursive: true, force: true }) };
});

fileStorageContract('S3 (gofakes3)', async () => {
  const s3 = await startFakeS3();
  // The adapter takes credentials from the AWS environment; gofakes3 accepts any.
  process.env.AWS_ACCESS_KEY_ID ??= 'test-key';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'test-secret';
  return { store: s3FileStorage({ bucket: s3.bucket, endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true }), cleanup: () => s3.stop() };
});

jobQueueContract('BullMQ', async () => ({
  // A prefix of its own on the test Redis: nothing of the service's queues is seen or touched.
  open: bullmqJobQueues(process.env.REDIS_URL!, `contract-${randomUUID()}`),
  cleanup: async () => undefined,
}));

/** The envelope, the Subject header and the body (every part, as sent) of a message the SMTP server received. */
function parsed(r: Received): ReceivedMail {
  const split = r.raw.indexOf('\r\n\r\n');
  const headers = r.raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ').split('\r\n');
  const subject = headers.find((h) => /^subject:/i.test(h))?.replace(/^subject:\s*/i, '') ?? '';
  return { from: r.from, to: r.to, subject, content: r.raw.slice(split + 4) };
}

mailContract('SMTP (nodemailer)', async (auth) => {
  const smtp = await startSmtp(auth);
  const settings = { host: '127.0.0.1', port: smtp.port, secure: false, timeoutMs: 5000, ...(auth ? { auth } : {}) };
  return {
    settings,
    unreachable: { ...settings, port: await freePort() },
    open: smtpMailer,
    received: () => smtp.received.map(parsed),
    refuse: (decide) => {
      smtp.refuse = decide;
    },
    cleanup: () => smtp.close(),
  };
});
