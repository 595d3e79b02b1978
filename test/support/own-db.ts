// A MongoDB database of a test file's own on the shared server, emptied first: other files' wipes drop only theirs.
import { MongoClient } from 'mongodb';

export async function ownDatabase(name: string): Promise<string> {
  const url = new URL(process.env.MONGO_URL!);
  url.pathname = `/${name}`;
  const mongo = new MongoClient(url.toString());
  await mongo.connect();
  await mongo.db().dropDatabase();
  await mongo.close();
  return url.toString();
}
