// Writes that fail part way: a commit that fails after its pending record was stored (MongoDB gone between the record
// and the log entry), and a MongoDB change that fails for good after its commit (FerretDB's PostgreSQL died under it).
// The caller gets 503, and the next recovery pass closes the one or applies the other, instead of the outbox and every
// read at a later revision waiting out the 30 s grace that an own write still on its way is given.
import { waitIdle } from '../support/converge.js';
import { memoryBackendInUse, startService, type TestService } from '../support/service.js';
import { MongoServerError } from 'mongodb';
import { CommitFailed, type ChangeLog } from '../../src/stores/ports/change-log.js';
import type { Stores } from '../../src/stores/ports/stores.js';
import { memoryRevisionCounter } from '../../src/stores/memory/revision-counter.js';

let svc: TestService;
/** Set to make the next commit store its pending record and then fail as a lost MongoDB connection does. */
let strandNext = false;
/** Set to make the next commit fail so, but with no pending record stored either (its insert failed too). */
let recordless = false;
/** The revision the last failed commit took. */
let lastTaken = 0;
/** Set to make the next tuple insert fail as FerretDB answers when its PostgreSQL dies under the statement. */
let insertDies = false;

/** The change log as the service gets it, but with the failure above. */
const failing = (log: ChangeLog): ChangeLog => ({
  ...log,
  async commit(entry, owner, opts) {
    if (!strandNext && !recordless) return log.commit(entry, owner, opts);
    const backend = memoryBackendInUse()!;
    const revision = await memoryRevisionCounter(backend.hub, 'authz').take();
    lastTaken = revision;
    if (strandNext) backend.changeLogState.pending.set(revision, { revision, owner, at: new Date() });
    strandNext = recordless = false;
    throw new CommitFailed(revision, Object.assign(new Error('connection 3 to 127.0.0.1:27017 closed'), { name: 'MongoNetworkError' }));
  },
});

/** The tuple store, with the failure above. */
const dying = (authz: Stores['authz']): Stores['authz'] => ({
  ...authz,
  async insertTuples(tuples, revision) {
    if (!insertDies) return authz.insertTuples(tuples, revision);
    insertDies = false;
    throw new MongoServerError({ message: '[msg_insert.go:168] FATAL: terminating connection due to unexpected postmaster exit (SQLSTATE 57P01)', code: 1, ok: 0 });
  },
});

beforeAll(async () => {
  svc = await startService({}, { memory: true, wrapStores: (s) => ({ ...s, changeLog: failing(s.changeLog), authz: dying(s.authz) }) });
  expect((await svc.http('POST', '/authorization/resources', { body: { name: 'Doc', relations: { owner: ['User'] }, permissions: { read: ['owner'] } } })).status).toBe(200);
});
afterAll(async () => {
  await svc?.stop();
});

it('answers 503 for the failed commit, closes its revision within a few recovery passes, and later writes are read fresh', async () => {
  const { changeLogState } = memoryBackendInUse()!;
  strandNext = true;
  const failed = await svc.http('POST', '/authorization/relations', { body: { subject: 'User:a', relation: 'owner', resource: 'Doc:1' } });
  expect([failed.status, failed.body.code]).toEqual([503, 'STORE_UNAVAILABLE']);
  const stranded = Math.max(...changeLogState.pending.keys());
  expect(changeLogState.log.has(stranded)).toBe(false);

  // The grace an own write on its way is given is 30 s: closed well before.
  await waitIdle(svc.http, 10_000);
  // Closed by a void: an insert of that entry still on its way could not land there now.
  expect(changeLogState.voids.has(stranded)).toBe(true);
  expect(changeLogState.pending.has(stranded)).toBe(false);

  const ok = await svc.http('POST', '/authorization/relations', { body: { subject: 'User:a', relation: 'owner', resource: 'Doc:1' } });
  expect(ok.status).toBe(201);
  const revision = Number(ok.body.revision);
  expect(revision).toBeGreaterThan(stranded);
  const check = await svc.http('GET', `/authorization/permissions/can?subject=User:a&permission=read&resource=Doc:1&consistency=at_least_as_fresh&revision=${revision}`);
  expect([check.status, check.body.allowed]).toEqual([200, true]);
});

it('answers 503 for a tuple whose insert FerretDB answered as failed after the commit, and applies its entry at the next passes', async () => {
  const { changeLogState } = memoryBackendInUse()!;
  insertDies = true;
  const failed = await svc.http('POST', '/authorization/relations', { body: { subject: 'User:b', relation: 'owner', resource: 'Doc:2' } });
  expect([failed.status, failed.body.code]).toEqual([503, 'STORE_UNAVAILABLE']);
  const logged = Math.max(...changeLogState.log.keys());
  expect(changeLogState.pending.has(logged)).toBe(true);
  // Read back from MongoDB: the tuple is not there, so the index says no.
  await waitIdle(svc.http, 10_000);
  expect(changeLogState.pending.has(logged)).toBe(false);
  const check = await svc.http('GET', `/authorization/permissions/can?subject=User:b&permission=read&resource=Doc:2&consistency=fully_consistent`);
  expect([check.status, check.body.allowed]).toEqual([200, false]);
  const again = await svc.http('POST', '/authorization/relations', { body: { subject: 'User:b', relation: 'owner', resource: 'Doc:2' } });
  expect(again.status).toBe(201);
});

it("closes a failed commit's revision with a void even when no pending record of it was stored, so it is never handed out again", async () => {
  const { changeLogState } = memoryBackendInUse()!;
  recordless = true;
  const failed = await svc.http('POST', '/authorization/relations', { body: { subject: 'User:c', relation: 'owner', resource: 'Doc:3' } });
  expect([failed.status, failed.body.code]).toEqual([503, 'STORE_UNAVAILABLE']);
  const taken = lastTaken;
  expect(changeLogState.pending.has(taken)).toBe(false);
  for (let i = 0; i < 100 && !changeLogState.voids.has(taken); i++) await new Promise((r) => setTimeout(r, 100));
  expect(changeLogState.voids.has(taken)).toBe(true);
});
