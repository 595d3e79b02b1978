// Config module `database`: read preference, read concern and write concern reach the MongoDB driver without a restart.
import { MongoClient, type CommandStartedEvent } from 'mongodb';
import { tunedDb } from '../../src/stores/mongo/tuned-db.js';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
beforeAll(async () => { svc = await startService(); }, 120_000);
afterAll(async () => { await svc?.stop(); });

it('a collection taken before a change uses the new options from the next call on', async () => {
  const client = new MongoClient(process.env.MONGO_URL!, { monitorCommands: true });
  await client.connect();
  const seen: CommandStartedEvent[] = [];
  client.on('commandStarted', (e) => seen.push(e));
  try {
    const tuned = tunedDb(client);
    const col = tuned.db.collection('tuned_probe'); // kept, as the stores keep theirs
    await col.insertOne({ _id: 'a' } as never);
    expect(seen.at(-1)!.command.writeConcern).toBeUndefined();
    tuned.set({ readPreference: 'primaryPreferred', readConcern: { level: 'local' }, writeConcern: { w: 1, j: true } });
    await col.insertOne({ _id: 'b' } as never);
    expect(seen.at(-1)!.command.writeConcern).toEqual({ w: 1, j: true });
    await col.findOne({ _id: 'a' } as never);
    expect(seen.at(-1)!.command.readConcern).toEqual({ level: 'local' });
    tuned.set({ readPreference: 'primary', writeConcern: {} });
    await col.insertOne({ _id: 'c' } as never);
    expect(seen.at(-1)!.command.writeConcern).toBeUndefined();
  } finally {
    await client.close();
  }
});

it('PATCH /config/database is validated and applied: the service keeps working with the new options', async () => {
  const bad = await svc.http('PATCH', '/config/database', { body: { readPreference: 'fastest' } });
  expect(bad.status).toBe(400);
  const ok = await svc.http('PATCH', '/config/database', { body: { readPreference: 'primaryPreferred', readConcern: { level: 'local' }, writeConcern: { w: 1 } } });
  expect(ok.status).toBe(200);
  expect(ok.body).toEqual({ readPreference: 'primaryPreferred', readConcern: { level: 'local' }, writeConcern: { w: 1 } });
  await svc.http('POST', '/authorization/resources', { body: { name: 'Crate', relations: { holder: ['User'] }, permissions: { open: ['holder'] } } });
  expect((await svc.http('POST', '/authorization/relations', { body: { subject: 'User:c', relation: 'holder', resource: 'Crate:1' } })).status).toBe(201);
  expect((await svc.http('GET', '/authorization/relations?search=Crate')).body.count).toBe(1);
});
