// Pages of the TUPLE edges for the admin list of relations, served by indexes (cypher/schema.cypher):
// the unique range index on t.key (order, subject-type prefix), the range index on (t.resourceType, t.key)
// (resource-type filter in key order) and the text index on t.keyLower (case-insensitive substring search).
// __DIR__ is ASC or DESC, __TYPE_LABEL__ a checked type name; nothing else is spliced in.

// name: count-all
MATCH ()-[t:TUPLE]->() RETURN count(t) AS n;

// name: count-from-type
// From Neo4j's count store: one lookup, whatever the size. Objects carry their type as a label.
MATCH (:__TYPE_LABEL__)-[t:TUPLE]->() RETURN count(t) AS n;

// name: count-to-type
MATCH ()-[t:TUPLE]->(:__TYPE_LABEL__) RETURN count(t) AS n;

// name: count-keyed
// Bounded: at most $cap index entries are read.
MATCH ()-[t:TUPLE]->() WHERE t.key STARTS WITH $prefix
WITH t LIMIT $cap RETURN count(*) AS n;

// name: count-typed
MATCH ()-[t:TUPLE]->() WHERE t.resourceType = $resourceType AND t.key STARTS WITH $prefix
WITH t LIMIT $cap RETURN count(*) AS n;

// name: page-keyed
// A page in key order from the range index: reads skip + limit entries.
MATCH ()-[t:TUPLE]->() WHERE t.key STARTS WITH $prefix
RETURN t.key AS key ORDER BY t.key __DIR__ SKIP $skip LIMIT $limit;

// name: page-typed
MATCH ()-[t:TUPLE]->() WHERE t.resourceType = $resourceType AND t.key STARTS WITH $prefix
RETURN t.key AS key ORDER BY t.resourceType __DIR__, t.key __DIR__ SKIP $skip LIMIT $limit;

// name: search-probe
// The text index's matches and the pending edges', at most $cap of them, sorted, then the type filters and the page. When the index gave
// fewer than $cap (seen), every match was read: the page and the count (matched) are exact. The page is a slice of
// the sorted list: sorting rows that carry the list itself is charged to the transaction once per row.
CALL () {
  MATCH ()-[t:TUPLE]->() WHERE t.keyLower CONTAINS toLower($search) RETURN t
  UNION ALL
  // Edges written since the catch-up last passed: not in the text index yet (a backlog the catch-up keeps short).
  MATCH ()-[t:TUPLE]->() WHERE t.searchPending = true AND t.key IS NOT NULL AND toLower(t.key) CONTAINS toLower($search) RETURN t
}
WITH t LIMIT $cap
WITH t.key AS k, t.key STARTS WITH $prefix AND ($resourceType IS NULL OR t.resourceType = $resourceType) AS keep
ORDER BY k __DIR__
WITH count(*) AS seen, collect(CASE WHEN keep THEN k END) AS keys
RETURN seen, size(keys) AS matched, keys[$skip..$skip + $limit] AS page;

// name: search-keyed
// A search with more than $cap matches: the range index in key order, at most $budget entries, filtered.
// It stops as soon as the page is full, so a dense search costs about (skip + limit) / density entries.
MATCH ()-[t:TUPLE]->() WHERE t.key STARTS WITH $prefix
WITH t ORDER BY t.key __DIR__ LIMIT $budget
WITH t WHERE toLower(t.key) CONTAINS toLower($search)
RETURN t.key AS key ORDER BY t.key __DIR__ SKIP $skip LIMIT $limit;

// name: search-typed
MATCH ()-[t:TUPLE]->() WHERE t.resourceType = $resourceType AND t.key STARTS WITH $prefix
WITH t ORDER BY t.resourceType __DIR__, t.key __DIR__ LIMIT $budget
WITH t WHERE toLower(t.key) CONTAINS toLower($search)
RETURN t.key AS key ORDER BY t.resourceType __DIR__, t.key __DIR__ SKIP $skip LIMIT $limit;

// name: tally-keyed
// When search-keyed could not fill its page: did the range end within the budget (then matched is exact)?
MATCH ()-[t:TUPLE]->() WHERE t.key STARTS WITH $prefix
WITH t ORDER BY t.key __DIR__ LIMIT $budget
RETURN count(*) AS scanned, count(CASE WHEN toLower(t.key) CONTAINS toLower($search) THEN 1 END) AS matched;

// name: tally-typed
MATCH ()-[t:TUPLE]->() WHERE t.resourceType = $resourceType AND t.key STARTS WITH $prefix
WITH t ORDER BY t.resourceType __DIR__, t.key __DIR__ LIMIT $budget
RETURN count(*) AS scanned, count(CASE WHEN toLower(t.key) CONTAINS toLower($search) THEN 1 END) AS matched;

// name: filled
// Whether the list fields were filled on the edges projected before they existed (a marker, set by mark-filled).
OPTIONAL MATCH (m:ProjectionMeta {id: 'list-fields'}) RETURN m IS NOT NULL AS filled;

// name: fill
// Fills the list fields of older edges in batches: resourceType is the resource's type, keyLower the lowered key.
MATCH ()-[t:TUPLE]->(o:Object) WHERE t.resourceType IS NULL OR (t.keyLower IS NULL AND t.searchPending IS NULL)
CALL (t, o) { SET t.resourceType = o.type, t.keyLower = toLower(t.key) REMOVE t.searchPending } IN TRANSACTIONS OF 10000 ROWS
RETURN count(*) AS n;

// name: catch-up
// The search text of at most $limit edges the write path left to it (searchPending), in one transaction: the text
// index's fixed cost per transaction is paid once for all of them. In key order from the index, as graph.ts writes and
// deletes edges, so it never deadlocks with them.
MATCH ()-[t:TUPLE]->() WHERE t.searchPending = true AND t.key IS NOT NULL
// Ordered on both properties of the index, so the index gives the order and a pass reads $limit entries, not the backlog.
WITH t ORDER BY t.searchPending, t.key LIMIT $limit
SET t.keyLower = toLower(t.key) REMOVE t.searchPending
RETURN count(*) AS n;

// name: mark-filled
MERGE (m:ProjectionMeta {id: 'list-fields'}) SET m.at = datetime();
