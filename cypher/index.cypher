// The precomputed index (DESIGN.md section 5). Ids carry the generation: "<gen>|<object>#<action>".
// IndexRow: OI(O,a) own keys (GIVES) and references (REF) to IndexFlat; Actor: AI(S) keys (HOLDS).

// name: meta
MERGE (m:IndexMeta {id: 'meta'}) ON CREATE SET m.gen = 1, m.building = null
RETURN m.gen AS gen, m.building AS building;

// name: meta-read
// The generations, read without a write transaction (every unit of index work asks); `meta` creates them once.
MATCH (m:IndexMeta {id: 'meta'})
RETURN m.gen AS gen, m.building AS building;

// name: set-building
MATCH (m:IndexMeta {id: 'meta'}) SET m.building = $building RETURN m.gen AS gen;

// name: switch-generation
MATCH (m:IndexMeta {id: 'meta'}) SET m.gen = $gen, m.building = null RETURN m.gen AS gen;

// name: check
MATCH (m:IndexMeta {id: 'meta'})
WITH toString(m.gen) + '|' AS g
OPTIONAL MATCH (r:IndexRow {id: g + $row})
OPTIONAL MATCH (a:Actor {id: g + $subject})
RETURN r IS NOT NULL AS rowExists,
  r IS NOT NULL AND (
    coalesce(r.public, false)
    OR EXISTS { MATCH (r)-[:REF]->(f:IndexFlat) WHERE f.public = true }
    // From the row's few keys to the actor, never from the actor's keys (a user may hold tens of thousands):
    // the inner test joins two bound nodes, which Neo4j expands from the side with fewer edges.
    OR (a IS NOT NULL AND (
      EXISTS { MATCH (r)-[:GIVES]->(k:IndexKey) WHERE EXISTS { (a)-[:HOLDS]->(k) } }
      OR EXISTS { MATCH (r)-[:REF]->(:IndexFlat)-[:GIVES]->(k:IndexKey) WHERE EXISTS { (a)-[:HOLDS]->(k) } }))
  ) AS allowed;

// name: check-many
// The check for each of $checks = [{row, subject}] in one query: concurrent checks share a round trip and a transaction.
MATCH (m:IndexMeta {id: 'meta'})
WITH toString(m.gen) + '|' AS g
UNWIND range(0, size($checks) - 1) AS i
WITH g, i, $checks[i].row AS row, $checks[i].subject AS subject
OPTIONAL MATCH (r:IndexRow {id: g + row})
OPTIONAL MATCH (a:Actor {id: g + subject})
RETURN i, r IS NOT NULL AS rowExists,
  r IS NOT NULL AND (
    coalesce(r.public, false)
    OR EXISTS { MATCH (r)-[:REF]->(f:IndexFlat) WHERE f.public = true }
    OR (a IS NOT NULL AND (
      EXISTS { MATCH (r)-[:GIVES]->(k:IndexKey) WHERE EXISTS { (a)-[:HOLDS]->(k) } }
      OR EXISTS { MATCH (r)-[:REF]->(:IndexFlat)-[:GIVES]->(k:IndexKey) WHERE EXISTS { (a)-[:HOLDS]->(k) } }))
  ) AS allowed;

// name: records
// The raw index records behind one decision, for /evaluate.
MATCH (m:IndexMeta {id: 'meta'})
WITH m.gen AS gen, toString(m.gen) + '|' AS g
OPTIONAL MATCH (r:IndexRow {id: g + $row})
OPTIONAL MATCH (a:Actor {id: g + $subject})
RETURN gen,
  CASE WHEN r IS NULL THEN null ELSE {
    id: $row, public: r.public,
    keys: [(r)-[:GIVES]->(k) | k.key],
    refs: [(r)-[:REF]->(f) | {id: substring(f.id, size(g)), public: f.public, keys: [(f)-[:GIVES]->(k) | k.key]}]
  } END AS objectIndex,
  CASE WHEN a IS NULL THEN null ELSE { subject: $subject, keys: [(a)-[:HOLDS]->(k) | k.key] } END AS subjectIndex;

// name: put-rows
// Replaces the rows of each object whose hash changed: objects = [{obj, type, hash, rows: [{action, public, keys, refs}]}].
UNWIND $objects AS o
OPTIONAL MATCH (old:IndexRow {gen: $gen, obj: o.obj})
WITH o, collect(old) AS olds
WITH o, olds WHERE size(olds) <> size(o.rows) OR any(x IN olds WHERE x.hash IS NULL OR x.hash <> o.hash)
FOREACH (x IN olds | DETACH DELETE x)
WITH o
CALL (o) {
  UNWIND o.rows AS row
  CREATE (r:IndexRow {id: toString($gen) + '|' + o.obj + '#' + row.action, gen: $gen, obj: o.obj, type: o.type,
                      action: row.action, public: row.public, hash: o.hash})
  WITH r, row
  CALL (r, row) {
    UNWIND row.keys AS key
    MERGE (k:IndexKey {id: toString($gen) + '|' + key}) ON CREATE SET k.key = key, k.gen = $gen
    CREATE (r)-[:GIVES]->(k)
  }
  CALL (r, row) {
    UNWIND row.refs AS ref
    MERGE (f:IndexFlat {id: toString($gen) + '|' + ref}) ON CREATE SET f.gen = $gen, f.public = false, f.hash = ''
    CREATE (r)-[:REF]->(f)
  }
}
RETURN o.obj AS obj;

// name: delete-rows
UNWIND $objects AS obj
MATCH (old:IndexRow {gen: $gen, obj: obj})
DETACH DELETE old;

// name: put-flats
// flats = [{id, obj, public, keys, deps, hash}]; writes those whose hash changed and returns how many did.
UNWIND $flats AS fl
MERGE (f:IndexFlat {id: toString($gen) + '|' + fl.id}) ON CREATE SET f.gen = $gen, f.hash = ''
WITH f, fl, f.hash <> fl.hash AS changed
CALL (f, fl, changed) {
  WITH f, fl, changed WHERE changed
  OPTIONAL MATCH (f)-[g:GIVES|DEPENDS]->()
  DELETE g
  WITH DISTINCT f, fl
  SET f.public = fl.public, f.hash = fl.hash, f.obj = fl.obj
  WITH f, fl
  CALL (f, fl) {
    UNWIND fl.keys AS key
    MERGE (k:IndexKey {id: toString($gen) + '|' + key}) ON CREATE SET k.key = key, k.gen = $gen
    CREATE (f)-[:GIVES]->(k)
  }
  CALL (f, fl) {
    UNWIND fl.deps AS dep
    MERGE (d:IndexDep {id: toString($gen) + '|' + dep}) ON CREATE SET d.obj = dep, d.gen = $gen
    CREATE (f)-[:DEPENDS]->(d)
  }
}
RETURN collect(CASE WHEN changed THEN fl.id END) AS changed;

// name: rows-referring
// Objects whose rows refer to any of the flats $flats, at most $limit: decisions about them follow those flats.
UNWIND $flats AS id
MATCH (:IndexFlat {id: toString($gen) + '|' + id})<-[:REF]-(r:IndexRow)
RETURN DISTINCT r.obj AS obj LIMIT $limit;

// name: flats-depending-on
// Owners of flats computed from tuples on any of $objects: what a change on those objects can alter.
UNWIND $objects AS o
MATCH (:IndexDep {id: toString($gen) + '|' + o})<-[:DEPENDS]-(f:IndexFlat)
RETURN DISTINCT f.obj AS obj;

// name: flattened
UNWIND $objects AS o
MATCH (f:IndexFlat {gen: $gen, obj: o})
RETURN DISTINCT o AS obj;

// name: sync-holds
// items = [{subject, key, present}]: the key a subject holds through one tuple or grant, added or removed.
UNWIND $items AS it
CALL (it) {
  WITH it WHERE it.present
  MERGE (a:Actor {id: toString($gen) + '|' + it.subject}) ON CREATE SET a.gen = $gen, a.subject = it.subject
  MERGE (k:IndexKey {id: toString($gen) + '|' + it.key}) ON CREATE SET k.key = it.key, k.gen = $gen
  MERGE (a)-[:HOLDS]->(k)
}
CALL (it) {
  WITH it WHERE NOT it.present
  MATCH (:Actor {id: toString($gen) + '|' + it.subject})-[h:HOLDS]->(:IndexKey {id: toString($gen) + '|' + it.key})
  DELETE h
};

// name: list-objects
// One page of the objects of $type on which $subject has $action, in id order: the check's join read from the
// actor side. Only the page leaves the database: the order is a top-k sort over the distinct matches.
MATCH (m:IndexMeta {id: 'meta'})
WITH m.gen AS gen, toString(m.gen) + '|' AS g
CALL (gen, g) {
  MATCH (:Actor {id: g + $subject})-[:HOLDS]->(:IndexKey)<-[:GIVES]-(r:IndexRow {type: $type, action: $action})
  RETURN r.obj AS obj
  UNION
  MATCH (:Actor {id: g + $subject})-[:HOLDS]->(:IndexKey)<-[:GIVES]-(:IndexFlat)<-[:REF]-(r:IndexRow {type: $type, action: $action})
  RETURN r.obj AS obj
  UNION
  MATCH (r:IndexRow {gen: gen, type: $type, action: $action, public: true})
  RETURN r.obj AS obj
  UNION
  // From the few public flats (their index), never from the rows: left to itself the planner scanned every row (0.5 s at 1M).
  MATCH (f:IndexFlat) USING INDEX f:IndexFlat(gen, public) WHERE f.gen = gen AND f.public = true
  CALL (f) {
    MATCH (f)<-[:REF]-(r:IndexRow) WHERE r.type = $type AND r.action = $action
    RETURN r.obj AS obj
  }
  RETURN obj
}
WITH DISTINCT obj ORDER BY obj SKIP $skip LIMIT $limit
RETURN obj;

// name: count-objects
// How many objects list-objects has in all, how many sort before $pivot, and whether $pivot is one of them.
MATCH (m:IndexMeta {id: 'meta'})
WITH m.gen AS gen, toString(m.gen) + '|' AS g
CALL (gen, g) {
  MATCH (:Actor {id: g + $subject})-[:HOLDS]->(:IndexKey)<-[:GIVES]-(r:IndexRow {type: $type, action: $action})
  RETURN r.obj AS obj
  UNION
  MATCH (:Actor {id: g + $subject})-[:HOLDS]->(:IndexKey)<-[:GIVES]-(:IndexFlat)<-[:REF]-(r:IndexRow {type: $type, action: $action})
  RETURN r.obj AS obj
  UNION
  MATCH (r:IndexRow {gen: gen, type: $type, action: $action, public: true})
  RETURN r.obj AS obj
  UNION
  // From the few public flats (their index), never from the rows: left to itself the planner scanned every row (0.5 s at 1M).
  MATCH (f:IndexFlat) USING INDEX f:IndexFlat(gen, public) WHERE f.gen = gen AND f.public = true
  CALL (f) {
    MATCH (f)<-[:REF]-(r:IndexRow) WHERE r.type = $type AND r.action = $action
    RETURN r.obj AS obj
  }
  RETURN obj
}
WITH DISTINCT obj
RETURN count(obj) AS count, count(CASE WHEN obj < $pivot THEN 1 END) AS below, count(CASE WHEN obj = $pivot THEN 1 END) > 0 AS has;

// name: list-subjects
// One page of the subjects holding a key that gives $action on the row $row, in id order.
MATCH (m:IndexMeta {id: 'meta'})
WITH toString(m.gen) + '|' AS g
OPTIONAL MATCH (r:IndexRow {id: g + $row})
WITH g, r
OPTIONAL MATCH (r)-[:GIVES|REF]->(x)
OPTIONAL MATCH (x)-[:GIVES]->(fk:IndexKey)
WITH r, collect(DISTINCT x) + collect(DISTINCT fk) AS nodes
WITH r, [n IN nodes WHERE n:IndexKey] AS keys, any(n IN nodes WHERE n:IndexFlat AND n.public) AS flatPublic
UNWIND (CASE WHEN size(keys) = 0 THEN [null] ELSE keys END) AS k
OPTIONAL MATCH (a:Actor)-[:HOLDS]->(k) WHERE a.subject STARTS WITH $typePrefix
WITH DISTINCT a.subject AS subject WHERE subject IS NOT NULL
WITH subject ORDER BY subject SKIP $skip LIMIT $limit
RETURN subject;

// name: count-subjects
// How many subjects list-subjects has, how many sort before $pivot, whether $pivot is one, and whether the decision is public.
MATCH (m:IndexMeta {id: 'meta'})
WITH toString(m.gen) + '|' AS g
OPTIONAL MATCH (r:IndexRow {id: g + $row})
WITH g, r
OPTIONAL MATCH (r)-[:GIVES|REF]->(x)
OPTIONAL MATCH (x)-[:GIVES]->(fk:IndexKey)
WITH r, collect(DISTINCT x) + collect(DISTINCT fk) AS nodes
WITH r, [n IN nodes WHERE n:IndexKey] AS keys, any(n IN nodes WHERE n:IndexFlat AND n.public) AS flatPublic
UNWIND (CASE WHEN size(keys) = 0 THEN [null] ELSE keys END) AS k
OPTIONAL MATCH (a:Actor)-[:HOLDS]->(k) WHERE a.subject STARTS WITH $typePrefix
WITH coalesce(r.public, false) OR flatPublic AS public, a.subject AS subject
RETURN public, count(DISTINCT subject) AS count, count(DISTINCT CASE WHEN subject < $pivot THEN subject END) AS below,
  count(DISTINCT CASE WHEN subject = $pivot THEN subject END) > 0 AS has;

// name: drop-generation-edges
// Deletes up to 10000 edges of one generation's index nodes with one label (spliced in; each label has a gen index).
// Edges go first, in bounded batches: a flat of a large team has hundreds of thousands of REF edges, and a
// DETACH DELETE of a few thousand such nodes would not fit in one transaction's memory.
MATCH (n:__LABEL__ {gen: $gen})-[r]-()
WITH DISTINCT r LIMIT 10000
DELETE r
RETURN count(*) AS deleted;

// name: drop-generation
// Deletes up to 5000 of one generation's index nodes with one label, once their edges are gone.
MATCH (n:__LABEL__ {gen: $gen})
WITH n LIMIT 5000
DETACH DELETE n
RETURN count(*) AS deleted;

// name: holds
// can(S, r, O) for a relation r: a relation is its own key, O#r, held through the tuple S#r@O (relations have no rows).
MATCH (m:IndexMeta {id: 'meta'})
WITH toString(m.gen) + '|' AS g
OPTIONAL MATCH (a:Actor {id: g + $subject})-[:HOLDS]->(k:IndexKey {id: g + $key})
RETURN k IS NOT NULL AS held;

// name: holds-many
// holds for each of $checks = [{subject, key}] in one query.
MATCH (m:IndexMeta {id: 'meta'})
WITH toString(m.gen) + '|' AS g
UNWIND range(0, size($checks) - 1) AS i
OPTIONAL MATCH (a:Actor {id: g + $checks[i].subject})-[:HOLDS]->(k:IndexKey {id: g + $checks[i].key})
RETURN i, k IS NOT NULL AS held;

// name: list-held
// One page of the objects of a type on whose relation the subject holds the key ($typePrefix 'Type:', $suffix '#relation').
MATCH (m:IndexMeta {id: 'meta'})
WITH toString(m.gen) + '|' AS g
MATCH (:Actor {id: g + $subject})-[:HOLDS]->(k:IndexKey)
WHERE k.key STARTS WITH $typePrefix AND k.key ENDS WITH $suffix
WITH DISTINCT left(k.key, size(k.key) - size($suffix)) AS obj ORDER BY obj SKIP $skip LIMIT $limit
RETURN obj;

// name: count-held
MATCH (m:IndexMeta {id: 'meta'})
WITH toString(m.gen) + '|' AS g
OPTIONAL MATCH (:Actor {id: g + $subject})-[:HOLDS]->(k:IndexKey)
WHERE k.key STARTS WITH $typePrefix AND k.key ENDS WITH $suffix
WITH DISTINCT left(k.key, size(k.key) - size($suffix)) AS obj
RETURN count(obj) AS count, count(CASE WHEN obj < $pivot THEN 1 END) AS below, count(CASE WHEN obj = $pivot THEN 1 END) > 0 AS has;

// name: list-holders
// One page of the subjects of a type ($typePrefix 'Type:') holding the key $key (a relation of an object).
MATCH (m:IndexMeta {id: 'meta'})
WITH toString(m.gen) + '|' AS g
MATCH (:IndexKey {id: g + $key})<-[:HOLDS]-(a:Actor)
WHERE a.subject STARTS WITH $typePrefix
WITH a.subject AS subject ORDER BY subject SKIP $skip LIMIT $limit
RETURN subject;

// name: count-holders
MATCH (m:IndexMeta {id: 'meta'})
WITH toString(m.gen) + '|' AS g
OPTIONAL MATCH (:IndexKey {id: g + $key})<-[:HOLDS]-(a:Actor)
WHERE a.subject STARTS WITH $typePrefix
WITH a.subject AS subject
RETURN count(subject) AS count, count(CASE WHEN subject < $pivot THEN 1 END) AS below, count(CASE WHEN subject = $pivot THEN 1 END) > 0 AS has;
