// Constraints and indexes, applied at every start (IF NOT EXISTS keeps it idempotent).

// name: object-key
CREATE CONSTRAINT object_key IF NOT EXISTS FOR (o:Object) REQUIRE o.key IS UNIQUE;

// name: tuple-key
CREATE CONSTRAINT tuple_key IF NOT EXISTS FOR ()-[t:TUPLE]-() REQUIRE t.key IS UNIQUE;

// name: row-id
CREATE CONSTRAINT row_id IF NOT EXISTS FOR (r:IndexRow) REQUIRE r.id IS UNIQUE;

// name: row-lookup
CREATE INDEX row_lookup IF NOT EXISTS FOR (r:IndexRow) ON (r.gen, r.type, r.action);

// name: flat-id
CREATE CONSTRAINT flat_id IF NOT EXISTS FOR (f:IndexFlat) REQUIRE f.id IS UNIQUE;

// name: key-id
CREATE CONSTRAINT key_id IF NOT EXISTS FOR (k:IndexKey) REQUIRE k.id IS UNIQUE;

// name: actor-id
CREATE CONSTRAINT actor_id IF NOT EXISTS FOR (a:Actor) REQUIRE a.id IS UNIQUE;

// name: meta-id
CREATE CONSTRAINT meta_id IF NOT EXISTS FOR (m:IndexMeta) REQUIRE m.id IS UNIQUE;
