// Constraints and indexes, applied at every start (IF NOT EXISTS keeps it idempotent).

// name: object-key
CREATE CONSTRAINT object_key IF NOT EXISTS FOR (o:Object) REQUIRE o.key IS UNIQUE;

// name: tuple-key
CREATE CONSTRAINT tuple_key IF NOT EXISTS FOR ()-[t:TUPLE]-() REQUIRE t.key IS UNIQUE;

// name: grant-key
CREATE CONSTRAINT grant_key IF NOT EXISTS FOR ()-[g:GRANT]-() REQUIRE g.key IS UNIQUE;

// name: row-id
CREATE CONSTRAINT row_id IF NOT EXISTS FOR (r:IndexRow) REQUIRE r.id IS UNIQUE;

// name: row-public
CREATE INDEX row_public IF NOT EXISTS FOR (r:IndexRow) ON (r.gen, r.type, r.action, r.public);

// name: flat-id
CREATE CONSTRAINT flat_id IF NOT EXISTS FOR (f:IndexFlat) REQUIRE f.id IS UNIQUE;

// name: key-id
CREATE CONSTRAINT key_id IF NOT EXISTS FOR (k:IndexKey) REQUIRE k.id IS UNIQUE;

// name: actor-id
CREATE CONSTRAINT actor_id IF NOT EXISTS FOR (a:Actor) REQUIRE a.id IS UNIQUE;

// name: meta-id
CREATE CONSTRAINT meta_id IF NOT EXISTS FOR (m:IndexMeta) REQUIRE m.id IS UNIQUE;

// name: row-object
CREATE INDEX row_object IF NOT EXISTS FOR (r:IndexRow) ON (r.gen, r.obj);

// name: actor-subject
CREATE INDEX actor_gen IF NOT EXISTS FOR (a:Actor) ON (a.gen);

// name: flat-public
CREATE INDEX flat_public IF NOT EXISTS FOR (f:IndexFlat) ON (f.gen, f.public);

// name: dep-id
CREATE CONSTRAINT dep_id IF NOT EXISTS FOR (d:IndexDep) REQUIRE d.id IS UNIQUE;

// name: flat-object
CREATE INDEX flat_object IF NOT EXISTS FOR (f:IndexFlat) ON (f.gen, f.obj);

// name: key-gen
CREATE INDEX key_gen IF NOT EXISTS FOR (k:IndexKey) ON (k.gen);

// name: dep-gen
CREATE INDEX dep_gen IF NOT EXISTS FOR (d:IndexDep) ON (d.gen);

// name: row-gen
CREATE INDEX row_gen IF NOT EXISTS FOR (r:IndexRow) ON (r.gen);

// name: flat-gen
CREATE INDEX flat_gen IF NOT EXISTS FOR (f:IndexFlat) ON (f.gen);

// name: tuple-type-key
// The admin list of relations filtered by resource type, in key order (cypher/listing.cypher).
CREATE INDEX tuple_type_key IF NOT EXISTS FOR ()-[t:TUPLE]-() ON (t.resourceType, t.key);

// name: tuple-search
// Its case-insensitive substring search: a trigram text index on the lowered key.
CREATE TEXT INDEX tuple_search IF NOT EXISTS FOR ()-[t:TUPLE]-() ON (t.keyLower);
