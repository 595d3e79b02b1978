// Constraints and indexes, applied at every start (IF NOT EXISTS keeps it idempotent).

// name: object-key
CREATE CONSTRAINT object_key IF NOT EXISTS FOR (o:Object) REQUIRE o.key IS UNIQUE;

// name: tuple-key
CREATE CONSTRAINT tuple_key IF NOT EXISTS FOR ()-[t:TUPLE]-() REQUIRE t.key IS UNIQUE;

// name: grant-key
CREATE CONSTRAINT grant_key IF NOT EXISTS FOR ()-[g:GRANT]-() REQUIRE g.key IS UNIQUE;

// name: flat-id
CREATE CONSTRAINT flat_node_id IF NOT EXISTS FOR (f:Flat) REQUIRE f.id IS UNIQUE;

// name: flat-public
// The few public flats, read first by a list of objects.
CREATE INDEX flat_node_public IF NOT EXISTS FOR (f:Flat) ON (f.gen, f.public);

// name: drop-flat-node-gen
// No index on a flat's generation alone: while the index's statistics said it was empty (just after a load, or a plan
// made at start), the planner joined every flat of the generation to the subject's tuples, and one list outgrew
// db.memory.transaction.max. A generation's flats are found through (gen, public) when they are dropped.
DROP INDEX flat_node_gen IF EXISTS;

// name: meta-id
CREATE CONSTRAINT meta_id IF NOT EXISTS FOR (m:IndexMeta) REQUIRE m.id IS UNIQUE;

// The schema of the index format before this one (rows, actors, keys; IndexStore.migrate drops their nodes).
// name: drop-row-id
DROP CONSTRAINT row_id IF EXISTS;

// name: drop-key-id
DROP CONSTRAINT key_id IF EXISTS;

// name: drop-actor-id
DROP CONSTRAINT actor_id IF EXISTS;

// name: drop-flat-id
DROP CONSTRAINT flat_id IF EXISTS;

// name: drop-dep-id
DROP CONSTRAINT dep_id IF EXISTS;

// name: drop-row-public
DROP INDEX row_public IF EXISTS;

// name: drop-row-object
DROP INDEX row_object IF EXISTS;

// name: drop-actor-gen
DROP INDEX actor_gen IF EXISTS;

// name: drop-flat-public
DROP INDEX flat_public IF EXISTS;

// name: drop-flat-object
DROP INDEX flat_object IF EXISTS;

// name: drop-key-gen
DROP INDEX key_gen IF EXISTS;

// name: drop-dep-gen
DROP INDEX dep_gen IF EXISTS;

// name: drop-row-gen
DROP INDEX row_gen IF EXISTS;

// name: drop-flat-gen
DROP INDEX flat_gen IF EXISTS;

// name: tuple-type-key
// The admin list of relations filtered by resource type, in key order (cypher/listing.cypher).
CREATE INDEX tuple_type_key IF NOT EXISTS FOR ()-[t:TUPLE]-() ON (t.resourceType, t.key);

// name: tuple-search
// Its case-insensitive substring search: a trigram text index on the lowered key. The write path does not set keyLower:
// a text index costs each transaction that touches it about 6.5 ms (bench/results/2026-11-28-edge-writes.md), so new
// edges carry searchPending and listing.cypher's catch-up fills keyLower for many of them in one transaction.
CREATE TEXT INDEX tuple_search IF NOT EXISTS FOR ()-[t:TUPLE]-() ON (t.keyLower);

// name: tuple-search-pending
// The edges whose keyLower the catch-up has still to fill (searchPending true), in key order (the order every
// projection writer locks in), and those it filled less than a settle ago (the time it did): a search reads both
// beside the text index, which a commit shows a search later than this one (listing.cypher, settle).
CREATE INDEX tuple_search_pending_key IF NOT EXISTS FOR ()-[t:TUPLE]-() ON (t.searchPending, t.key);
