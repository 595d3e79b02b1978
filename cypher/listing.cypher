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

// name: search-pending
// The edges not in the text index yet, or indexed too lately to be sure a search sees them there (settle), that match
// the search: a backlog the catch-up keeps short. Read before search-probe, in a statement of its own (see there). The
// hint: on an empty store Neo4j planned this as a scan of every key, filtered: at 1M tuples, all of them each search.
// Read in the index's ascending order, pinned: `true` sorts before every number, so an edge the catch-up marks with
// its time while this reads moves ahead of the cursor (read again, kept once), never behind it.
MATCH ()-[t:TUPLE]->() USING INDEX t:TUPLE(searchPending, key)
WHERE t.searchPending IS NOT NULL AND t.key IS NOT NULL AND toLower(t.key) CONTAINS toLower($search)
WITH t ORDER BY t.searchPending, t.key
RETURN DISTINCT t.key AS key, t.resourceType AS resourceType LIMIT $cap;

// name: search-probe
// The text index's matches and the pending ones ($pending, from search-pending), at most $cap of each, the first $cap
// of them in order, then the type filters and the page. When they were fewer than $cap (seen), every match was read:
// the page and the count (matched) are exact. The page is a slice of the sorted list: sorting rows that carry the list
// itself is charged to the transaction once per row.
// Why two statements, and settle: a statement reads the text index as it was when it began but the pending edges'
// range index as it goes, and a commit shows a search its range index change before its text index change. When a
// catch-up took the mark off in its own transaction, in one statement, a search missed the edges a pass committed
// meanwhile (in CI, and in the contract case). Now an edge keeps its mark until a later transaction (settle, after the
// catch-up's commit returned and $settleMs after it began), and the marks are read first: one unmarked before
// search-pending read it was searchable before this began.
// One read twice is kept once (UNION).
CALL () {
  UNWIND $pending AS p
  RETURN p.key AS k, p.resourceType AS rt
  UNION
  MATCH ()-[t:TUPLE]->() WHERE t.keyLower CONTAINS toLower($search)
  // Limited in the branch: after the union Neo4j folds a limit and the sort into a Top, which reads every match first.
  RETURN t.key AS k, t.resourceType AS rt LIMIT $cap
}
WITH k, k STARTS WITH $prefix AND ($resourceType IS NULL OR rt = $resourceType) AS keep
ORDER BY k __DIR__ LIMIT $cap
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
// Fills the list fields of older edges in batches: resourceType is the resource's type, keyLower the lowered key. A
// pending mark becomes a time, for settle to take off later (see there).
MATCH ()-[t:TUPLE]->(o:Object) WHERE t.resourceType IS NULL OR (t.keyLower IS NULL AND t.searchPending IS NULL)
CALL (t, o) {
  SET t.resourceType = o.type, t.keyLower = toLower(t.key), t.searchPending = CASE WHEN t.searchPending IS NULL THEN null ELSE timestamp() END
} IN TRANSACTIONS OF 10000 ROWS
RETURN count(*) AS n;

// name: catch-up
// The search text of at most $limit edges the write path left to it (searchPending = true), in one transaction: the
// text index's fixed cost per transaction is paid once for all of them. In key order from the index, as graph.ts
// writes and deletes edges, so it never deadlocks with them. Each keeps a mark, the time it was indexed, until settle
// takes it off: see there.
MATCH ()-[t:TUPLE]->() USING INDEX t:TUPLE(searchPending, key) WHERE t.searchPending = true AND t.key IS NOT NULL
// Ordered on both properties of the index, so the index gives the order and a pass reads $limit entries, not the backlog.
WITH t ORDER BY t.searchPending, t.key LIMIT $limit
SET t.keyLower = toLower(t.key), t.searchPending = timestamp()
RETURN count(*) AS n;

// name: settle
// Takes the mark off at most $limit edges marked at least $settleMs ago, so a search stops reading them as pending.
// Never in the transaction that indexed them: a commit shows a search the range index's change before the text
// index's (a search in CI missed tuples that one transaction had moved from one to the other). Run after a catch-up's
// commit has returned (the order is what makes it safe; the time, from when that catch-up began, is a margin). Locked
// in key order, as catch-up. The hint: on a small store Neo4j planned this as a scan of every key.
MATCH ()-[t:TUPLE]->() USING INDEX t:TUPLE(searchPending, key) WHERE t.searchPending < timestamp() - $settleMs AND t.key IS NOT NULL
WITH t ORDER BY t.searchPending, t.key LIMIT $limit
WITH t ORDER BY t.key
REMOVE t.searchPending
RETURN count(*) AS n;

// name: idle
// Whether any edge still carries a mark (pending, or indexed and not yet settled): the first entry of the index, no lock taken.
OPTIONAL MATCH ()-[t:TUPLE]->() USING INDEX t:TUPLE(searchPending, key) WHERE t.searchPending IS NOT NULL AND t.key IS NOT NULL
WITH t LIMIT 1
RETURN t IS NULL AS idle;

// name: mark-filled
MERGE (m:ProjectionMeta {id: 'list-fields'}) SET m.at = datetime();
