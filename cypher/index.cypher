// The precomputed index (DESIGN.md section 5). Ids carry the generation: "<gen>|<object>#<action>".
// IndexRow: OI(O,a) own keys (GIVES) and references (REF) to IndexFlat; Actor: AI(S) keys (HOLDS).

// name: meta
MERGE (m:IndexMeta {id: 'meta'}) ON CREATE SET m.gen = 1, m.building = null
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
    r.public
    OR EXISTS { MATCH (r)-[:REF]->(f:IndexFlat) WHERE f.public }
    OR (a IS NOT NULL AND (
      EXISTS { MATCH (a)-[:HOLDS]->(:IndexKey)<-[:GIVES]-(r) }
      OR EXISTS { MATCH (a)-[:HOLDS]->(:IndexKey)<-[:GIVES]-(:IndexFlat)<-[:REF]-(r) }))
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
// Replaces every row of each object: rows = [{obj, type, rows: [{action, public, keys, refs}]}].
UNWIND $objects AS o
OPTIONAL MATCH (old:IndexRow {gen: $gen, obj: o.obj})
DETACH DELETE old
WITH DISTINCT o
UNWIND o.rows AS row
CREATE (r:IndexRow {id: toString($gen) + '|' + o.obj + '#' + row.action, gen: $gen, obj: o.obj, type: o.type,
                    action: row.action, public: row.public})
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
};

// name: delete-rows
UNWIND $objects AS obj
MATCH (old:IndexRow {gen: $gen, obj: obj})
DETACH DELETE old;

// name: put-flats
// flats = [{id, public, keys, hash}]; returns how many changed content.
UNWIND $flats AS fl
MERGE (f:IndexFlat {id: toString($gen) + '|' + fl.id}) ON CREATE SET f.gen = $gen, f.hash = ''
WITH f, fl, f.hash <> fl.hash AS changed
CALL (f, fl, changed) {
  WITH f, fl, changed WHERE changed
  OPTIONAL MATCH (f)-[g:GIVES]->()
  DELETE g
  WITH DISTINCT f, fl
  SET f.public = fl.public, f.hash = fl.hash
  WITH f, fl
  UNWIND fl.keys AS key
  MERGE (k:IndexKey {id: toString($gen) + '|' + key}) ON CREATE SET k.key = key, k.gen = $gen
  CREATE (f)-[:GIVES]->(k)
}
RETURN sum(CASE WHEN changed THEN 1 ELSE 0 END) AS changed;

// name: put-actors
// actors = [{subject, keys}]; an actor with no keys is removed.
UNWIND $actors AS ac
MERGE (a:Actor {id: toString($gen) + '|' + ac.subject}) ON CREATE SET a.gen = $gen, a.subject = ac.subject
WITH a, ac
OPTIONAL MATCH (a)-[h:HOLDS]->()
DELETE h
WITH DISTINCT a, ac
CALL (a, ac) {
  UNWIND ac.keys AS key
  MERGE (k:IndexKey {id: toString($gen) + '|' + key}) ON CREATE SET k.key = key, k.gen = $gen
  CREATE (a)-[:HOLDS]->(k)
}
WITH a, ac WHERE size(ac.keys) = 0
DELETE a;

// name: list-objects
// Objects of $type on which $subject has $action: the check's join read from the actor side.
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
  MATCH (f:IndexFlat {gen: gen, public: true})<-[:REF]-(r:IndexRow {type: $type, action: $action})
  RETURN r.obj AS obj
}
WITH DISTINCT obj ORDER BY obj
WITH collect(obj) AS found
RETURN size(found) AS count, found[$skip..$skip + $limit] AS objects;

// name: list-subjects
// Subjects holding a key that gives $action on $resource, and whether the decision is public.
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
WITH r, flatPublic, collect(DISTINCT a.subject) AS subjects
RETURN coalesce(r.public, false) OR flatPublic AS public, subjects;

// name: drop-generation
// Deletes one generation's index nodes in batches.
MATCH (n) WHERE (n:IndexRow OR n:IndexFlat OR n:IndexKey OR n:Actor) AND n.gen = $gen
WITH n LIMIT 5000
DETACH DELETE n
RETURN count(*) AS deleted;
