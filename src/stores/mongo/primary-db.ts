// The Db of the write path (tuples, change log, revisions, tokens, users, teams, schemas): on the primary, acknowledged.
import { ReadPreference, WriteConcern, type Db, type MongoClient } from 'mongodb';

/**
 * Every store but the database module's documents reads and writes here, whatever the `database` module's config (or
 * the connection string) says: a delete that reads presence from a lagging secondary, or an unacknowledged write
 * (`w: 0`), would break what rests on reading one's own writes and on duplicate-key errors (revisions, refresh-token
 * reuse detection, unique emails and names). Reads go to the primary; a `w: 0` of the connection string is raised to 1,
 * any other write concern (the server's default, majority on a replica set) is kept.
 */
export function primaryDb(client: MongoClient): Db {
  const unacknowledged = client.writeConcern?.w === 0;
  return client.db(undefined, { readPreference: ReadPreference.primary, ...(unacknowledged ? { writeConcern: new WriteConcern(1) } : {}) });
}
