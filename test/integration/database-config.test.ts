// Config module `database`: read preference, read concern and write concern reach the MongoDB driver without a restart
// (the route that sets them: database-config-route.test.ts, on the twins).
import { MongoClient, type CommandStartedEvent } from 'mongodb';
import { tunedDb } from '../../src/stores/mongo/tuned-db.js';

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
