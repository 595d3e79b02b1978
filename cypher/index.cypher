// The precomputed index (DESIGN.md section 5), Leopard's split: the TUPLE and GRANT edges of the projection are each
// subject's direct sets (MEMBER2GROUP) and are never copied; the only precomputed nodes are the flats (GROUP2GROUP):
// (x:Object)-[:FLAT]->(f:Flat {gen, perm, public, hash})-[:GIVES {rel, slot}]->(y:Object) says that holding y#rel
// (a tuple S#rel@y, or a grant when rel ends in '!') gives x's permission `perm`, through any number of arrows.
// Checks and lists take the model's part as parameters (src/engine/index-plan.ts): $direct relations, $grants,
// $arrowRels with $targets and $types per arrow relation (the types of x that lead anywhere), $slots, $public.

// name: meta
MERGE (m:IndexMeta {id: 'meta'}) ON CREATE SET m.gen = 1, m.building = null, m.format = 2
RETURN m.gen AS gen, m.building AS building, m.format AS format;

// name: meta-read
// The generations, read without a write transaction; `meta` creates them once.
MATCH (m:IndexMeta {id: 'meta'})
RETURN m.gen AS gen, m.building AS building, m.format AS format;

// name: set-building
MATCH (m:IndexMeta {id: 'meta'}) SET m.building = $building RETURN m.gen AS gen;

// name: switch-generation
// A generation built whole is in this index's format: an older format's nodes are dropped after the switch.
MATCH (m:IndexMeta {id: 'meta'}) SET m.gen = $gen, m.building = null, m.format = 2 RETURN m.gen AS gen;

// name: check-many
// can(S, a, O) for each of $checks = [{subject, object, public, direct, grants, arrowRels, targets, types, slots}]: concurrent checks share a round trip. Seeks S and O; the rest are expansions from those two nodes.
// The arrow tuples into O are found from O while it has at most $dense tuples; past that (an object with 10,000
// readers) each of them would be read to find a few arrows, so the same question is asked from S's side. Every
// subquery is evaluated whatever the OR around it says, so each one opens with an UNWIND of one row or none: the
// side not taken reads nothing.
MATCH (m:IndexMeta {id: 'meta'})
UNWIND range(0, size($checks) - 1) AS i
WITH m.gen AS gen, i, $checks[i] AS c
OPTIONAL MATCH (s:Object {key: c.subject})
OPTIONAL MATCH (o:Object {key: c.object})
WITH gen, i, c, s, o, o IS NOT NULL AND COUNT { (o)<-[:TUPLE]-() } > $dense AS dense
WITH gen, i, c, s, o, CASE WHEN dense THEN [] ELSE [true] END AS fromObject, CASE WHEN dense THEN [true] ELSE [] END AS fromPublic,
  CASE WHEN dense AND s IS NOT NULL THEN [true] ELSE [] END AS fromSubject
RETURN i, c.public OR (o IS NOT NULL AND (
  (s IS NOT NULL AND EXISTS { MATCH (s)-[t:TUPLE]->(o) WHERE t.relation IN c.direct })
  OR (s IS NOT NULL AND EXISTS { MATCH (s)-[g:GRANT]->(o) WHERE g.permission IN c.grants })
  OR EXISTS {
    // An arrow tuple into O whose subject's flat of a target is found by its id (one seek, not every flat of x).
    UNWIND fromObject AS go
    MATCH (x:Object)-[t:TUPLE]->(o)
    WHERE t.relation IN c.arrowRels AND x.type IN c.types[t.relation]
    UNWIND c.targets[t.relation] AS target
    MATCH (f:Flat {id: toString(gen) + '|' + x.key + '#' + target})
    WITH DISTINCT f
    WHERE f.public OR (s IS NOT NULL AND EXISTS {
      // Each object y the flat gives a key of once (a team gives several), then whether S holds one of them.
      MATCH (f)-[:GIVES]->(y:Object) WITH DISTINCT y
      WHERE EXISTS { MATCH (y)<-[u:TUPLE|GRANT]-(s) WHERE EXISTS {
        MATCH (f)-[k:GIVES]->(y) WHERE k.slot IN c.slots AND k.rel = coalesce(u.relation, u.permission + '!') } } })
  }
  OR EXISTS {
    // The same from S: a key S holds, a flat of the live generation giving it, and that flat owner's arrow into O.
    UNWIND fromSubject AS go
    MATCH (s)-[u:TUPLE|GRANT]->(:Object)<-[k:GIVES]-(f:Flat)
    WHERE f.gen = gen AND k.slot IN c.slots AND k.rel = coalesce(u.relation, u.permission + '!')
    WITH DISTINCT f
    MATCH (f)<-[:FLAT]-(x:Object)
    WHERE EXISTS { MATCH (x)-[t:TUPLE]->(o) WHERE t.relation IN c.arrowRels AND f.perm IN c.targets[t.relation] AND x.type IN c.types[t.relation] }
  }
  OR EXISTS {
    // From S too, a public flat (there are few) whose owner has an arrow into O.
    UNWIND fromPublic AS go
    MATCH (f:Flat) USING INDEX f:Flat(gen, public) WHERE f.gen = gen AND f.public = true
    MATCH (f)<-[:FLAT]-(x:Object)
    WHERE EXISTS { MATCH (x)-[t:TUPLE]->(o) WHERE t.relation IN c.arrowRels AND f.perm IN c.targets[t.relation] AND x.type IN c.types[t.relation] }
  }
  OR (s IS NOT NULL AND EXISTS {
    // An arrow to a relation of x: S#target@x.
    UNWIND fromObject AS go
    MATCH (s)-[u:TUPLE]->(x:Object)-[t:TUPLE]->(o)
    WHERE t.relation IN c.arrowRels AND u.relation IN c.targets[t.relation] AND x.type IN c.types[t.relation]
      AND x.type + '#' + u.relation IN c.slots })
  OR EXISTS {
    // The same from S.
    UNWIND fromSubject AS go
    MATCH (s)-[u:TUPLE]->(x:Object)
    WHERE EXISTS { MATCH (x)-[t:TUPLE]->(o) WHERE t.relation IN c.arrowRels AND u.relation IN c.targets[t.relation]
      AND x.type IN c.types[t.relation] AND x.type + '#' + u.relation IN c.slots } }
)) AS allowed;

// name: records
// What one decision reads, for /evaluate: O's arrow tuples with the flats they lead to, and S's direct keys.
MATCH (m:IndexMeta {id: 'meta'})
OPTIONAL MATCH (o:Object {key: $object})
OPTIONAL MATCH (s:Object {key: $subject})
RETURN m.gen AS gen,
  CASE WHEN o IS NULL THEN [] ELSE
    [(x:Object)-[t:TUPLE]->(o) WHERE t.relation IN $arrowRels AND x.type IN $types[t.relation] |
      {x: x.key, rel: t.relation, flats: [(x)-[:FLAT]->(f:Flat) WHERE f.gen = m.gen AND f.perm IN $targets[t.relation] |
        {perm: f.perm, public: f.public, keys: [(f)-[k:GIVES]->(y) | y.key + '#' + k.rel]}]}][..1000] END AS arrows,
  CASE WHEN s IS NULL THEN null ELSE
    [(s)-[u:TUPLE|GRANT]->(y:Object) | {key: y.key + '#' + coalesce(u.relation, u.permission + '!'), slot: y.type + '#' + coalesce(u.relation, u.permission + '!')}][..1000]
  END AS held;

// name: put-flats
// flats = [{id, obj, perm, public, gives: [{obj, rel, slot}], deps, hash}]; rewrites those whose hash changed and
// returns their ids. Every object named here is a node of the projection: a flat's keys and deps are objects its
// closure reached through tuples.
UNWIND $flats AS fl
MATCH (x:Object {key: fl.obj})
MERGE (f:Flat {id: toString($gen) + '|' + fl.id}) ON CREATE SET f.gen = $gen, f.obj = fl.obj, f.perm = fl.perm, f.public = false, f.hash = ''
MERGE (x)-[:FLAT]->(f)
WITH f, fl, f.hash <> fl.hash AS changed
CALL (f, fl, changed) {
  WITH f, fl, changed WHERE changed
  OPTIONAL MATCH (f)-[g:GIVES|DEPENDS]->()
  DELETE g
  WITH DISTINCT f, fl
  SET f.public = fl.public, f.hash = fl.hash
  WITH f, fl
  CALL (f, fl) {
    UNWIND fl.gives AS k
    MATCH (y:Object {key: k.obj})
    CREATE (f)-[:GIVES {rel: k.rel, slot: k.slot}]->(y)
  }
  CALL (f, fl) {
    UNWIND fl.deps AS dep
    MATCH (d:Object {key: dep})
    CREATE (f)-[:DEPENDS]->(d)
  }
}
RETURN collect(CASE WHEN changed THEN fl.id END) AS changed;

// name: drop-other-flats
// owners = [{obj, perms}]: an owner's flats of permissions its type no longer has (a redefinition removed or renamed
// one) would still answer for an arrow naming that target; they go when the owner's flats are written.
UNWIND $owners AS o
MATCH (:Object {key: o.obj})-[:FLAT]->(f:Flat)
WHERE f.gen = $gen AND NOT f.perm IN o.perms
DETACH DELETE f
RETURN count(*) AS deleted;

// name: objects-under
// Objects with an arrow tuple from the owner of any of the flats $flats, at most $limit: decisions about them follow
// those flats.
UNWIND $flats AS id
MATCH (:Flat {id: toString($gen) + '|' + id})<-[:FLAT]-(:Object)-[:TUPLE]->(o:Object)
RETURN DISTINCT o.key AS obj LIMIT $limit;

// name: flats-depending-on
// Owners of flats computed from tuples on any of $objects: what a change on those objects can alter.
UNWIND $objects AS key
MATCH (:Object {key: key})<-[:DEPENDS]-(f:Flat)
WHERE f.gen = $gen
RETURN DISTINCT f.obj AS obj;

// name: flattened
UNWIND $objects AS key
MATCH (:Object {key: key})-[:FLAT]->(f:Flat)
WHERE f.gen = $gen
RETURN DISTINCT key AS obj;

// name: holds
// Whether S#relation@O is stored (the service checks that the model counts it).
OPTIONAL MATCH (:Object {key: $subject})-[t:TUPLE]->(:Object {key: $object})
WHERE t.relation = $relation
RETURN count(t) > 0 AS held;

// name: holds-many
UNWIND range(0, size($checks) - 1) AS i
OPTIONAL MATCH (:Object {key: $checks[i].subject})-[t:TUPLE]->(:Object {key: $checks[i].object})
WHERE t.relation = $checks[i].relation
RETURN i, count(t) > 0 AS held;

// name: list-objects
// One page of the objects of $type on which $subject has the action, in key order: the check's joins read from the
// subject's side. Only the page leaves the database: the order is a top-k sort over the distinct matches.
MATCH (m:IndexMeta {id: 'meta'})
OPTIONAL MATCH (s:Object {key: $subject})
CALL (m, s) {
  MATCH (s)-[t:TUPLE]->(o:Object) WHERE t.relation IN $direct AND o.type = $type
  RETURN o.key AS obj
  UNION
  MATCH (s)-[g:GRANT]->(o:Object) WHERE g.permission IN $grants AND o.type = $type
  RETURN o.key AS obj
  UNION
  MATCH (s)-[u:TUPLE]->(x:Object)-[t:TUPLE]->(o:Object)
  WHERE t.relation IN $arrowRels AND u.relation IN $targets[t.relation] AND o.type = $type
    AND x.type + '#' + u.relation IN $slots AND x.type IN $types[t.relation]
  RETURN o.key AS obj
  UNION
  MATCH (s)-[u:TUPLE|GRANT]->(:Object)<-[k:GIVES]-(f:Flat)
  WHERE f.gen = m.gen AND k.slot IN $slots AND coalesce(u.relation, u.permission + '!') = k.rel
  WITH DISTINCT f
  MATCH (f)<-[:FLAT]-(x:Object)-[t:TUPLE]->(o:Object)
  WHERE t.relation IN $arrowRels AND f.perm IN $targets[t.relation] AND o.type = $type
    AND x.type IN $types[t.relation]
  RETURN o.key AS obj
  UNION
  // From the few public flats (their index), never from the objects.
  MATCH (f:Flat) USING INDEX f:Flat(gen, public) WHERE f.gen = m.gen AND f.public = true
  MATCH (f)<-[:FLAT]-(x:Object)-[t:TUPLE]->(o:Object)
  WHERE t.relation IN $arrowRels AND f.perm IN $targets[t.relation] AND o.type = $type
    AND x.type IN $types[t.relation]
  RETURN o.key AS obj
}
WITH DISTINCT obj ORDER BY obj SKIP $skip LIMIT $limit
RETURN obj;

// name: count-objects
// How many objects list-objects has in all, how many sort before $pivot, and whether $pivot is one of them.
MATCH (m:IndexMeta {id: 'meta'})
OPTIONAL MATCH (s:Object {key: $subject})
CALL (m, s) {
  MATCH (s)-[t:TUPLE]->(o:Object) WHERE t.relation IN $direct AND o.type = $type
  RETURN o.key AS obj
  UNION
  MATCH (s)-[g:GRANT]->(o:Object) WHERE g.permission IN $grants AND o.type = $type
  RETURN o.key AS obj
  UNION
  MATCH (s)-[u:TUPLE]->(x:Object)-[t:TUPLE]->(o:Object)
  WHERE t.relation IN $arrowRels AND u.relation IN $targets[t.relation] AND o.type = $type
    AND x.type + '#' + u.relation IN $slots AND x.type IN $types[t.relation]
  RETURN o.key AS obj
  UNION
  MATCH (s)-[u:TUPLE|GRANT]->(:Object)<-[k:GIVES]-(f:Flat)
  WHERE f.gen = m.gen AND k.slot IN $slots AND coalesce(u.relation, u.permission + '!') = k.rel
  WITH DISTINCT f
  MATCH (f)<-[:FLAT]-(x:Object)-[t:TUPLE]->(o:Object)
  WHERE t.relation IN $arrowRels AND f.perm IN $targets[t.relation] AND o.type = $type
    AND x.type IN $types[t.relation]
  RETURN o.key AS obj
  UNION
  MATCH (f:Flat) USING INDEX f:Flat(gen, public) WHERE f.gen = m.gen AND f.public = true
  MATCH (f)<-[:FLAT]-(x:Object)-[t:TUPLE]->(o:Object)
  WHERE t.relation IN $arrowRels AND f.perm IN $targets[t.relation] AND o.type = $type
    AND x.type IN $types[t.relation]
  RETURN o.key AS obj
}
WITH DISTINCT obj
RETURN count(obj) AS count, count(CASE WHEN obj < $pivot THEN 1 END) AS below, count(CASE WHEN obj = $pivot THEN 1 END) > 0 AS has;

// name: subjects-of
// The subjects of type $subjectType holding a key that gives the action on $object, and whether a flat it reaches is
// public; the list and the count statements below wrap it.
MATCH (m:IndexMeta {id: 'meta'})
OPTIONAL MATCH (o:Object {key: $object})
CALL (m, o) {
  MATCH (s:Object)-[t:TUPLE]->(o) WHERE t.relation IN $direct AND s.type = $subjectType
  RETURN s.key AS id
  UNION
  MATCH (s:Object)-[g:GRANT]->(o) WHERE g.permission IN $grants AND s.type = $subjectType
  RETURN s.key AS id
  UNION
  MATCH (s:Object)-[u:TUPLE]->(x:Object)-[t:TUPLE]->(o)
  WHERE t.relation IN $arrowRels AND u.relation IN $targets[t.relation] AND s.type = $subjectType
    AND x.type + '#' + u.relation IN $slots AND x.type IN $types[t.relation]
  RETURN s.key AS id
  UNION
  MATCH (x:Object)-[t:TUPLE]->(o)
  WHERE t.relation IN $arrowRels AND x.type IN $types[t.relation]
  MATCH (x)-[:FLAT]->(f:Flat) WHERE f.gen = m.gen AND f.perm IN $targets[t.relation]
  WITH DISTINCT f
  MATCH (f)-[k:GIVES]->(:Object)<-[u:TUPLE|GRANT]-(s:Object)
  WHERE k.slot IN $slots AND coalesce(u.relation, u.permission + '!') = k.rel AND s.type = $subjectType
  RETURN s.key AS id
}
__TAIL__;

// name: flat-public
// Whether one of the flats $object's arrow tuples lead to admits anyone.
MATCH (m:IndexMeta {id: 'meta'})
OPTIONAL MATCH (o:Object {key: $object})
RETURN o IS NOT NULL AND EXISTS {
  MATCH (x:Object)-[t:TUPLE]->(o)
  WHERE t.relation IN $arrowRels AND x.type IN $types[t.relation]
  MATCH (x)-[:FLAT]->(f:Flat) WHERE f.gen = m.gen AND f.perm IN $targets[t.relation] AND f.public
} AS public;

// name: named-of-type
// One page of the objects of $type a valid tuple or grant names ($allowed: `Type#relation` -> subject types or '*';
// $perms: `Type#permission` of every permission): the list of an action that admits anyone.
// The type's label is spliced in (checked against the type-name pattern).
MATCH (o:__TYPE_LABEL__)
WHERE (EXISTS { MATCH (o)<-[t:TUPLE]-(a:Object) WHERE '*' IN $allowed[o.type + '#' + t.relation] OR a.type IN $allowed[o.type + '#' + t.relation] }
    OR EXISTS { MATCH (o)-[t:TUPLE]->(b:Object) WHERE '*' IN $allowed[b.type + '#' + t.relation] OR o.type IN $allowed[b.type + '#' + t.relation] }
    OR EXISTS { MATCH (o)-[g:GRANT]-(b:Object) WHERE (startNode(g) = o AND b.type + '#' + g.permission IN $perms) OR (endNode(g) = o AND o.type + '#' + g.permission IN $perms) })
WITH o.key AS id
__TAIL__;

// name: list-held
// One page of the objects of $type whose $relation $subject holds through a tuple.
MATCH (:Object {key: $subject})-[t:TUPLE]->(o:Object)
WHERE t.relation = $relation AND o.type = $type
WITH DISTINCT o.key AS obj ORDER BY obj SKIP $skip LIMIT $limit
RETURN obj;

// name: count-held
OPTIONAL MATCH (:Object {key: $subject})-[t:TUPLE]->(o:Object)
WHERE t.relation = $relation AND o.type = $type
WITH DISTINCT o.key AS obj
RETURN count(obj) AS count, count(CASE WHEN obj < $pivot THEN 1 END) AS below, count(CASE WHEN obj = $pivot THEN 1 END) > 0 AS has;

// name: list-holders
// One page of the subjects of $subjectType holding $relation on $object through a tuple.
MATCH (s:Object)-[t:TUPLE]->(:Object {key: $object})
WHERE t.relation = $relation AND s.type = $subjectType
WITH DISTINCT s.key AS subject ORDER BY subject SKIP $skip LIMIT $limit
RETURN subject;

// name: count-holders
OPTIONAL MATCH (s:Object)-[t:TUPLE]->(:Object {key: $object})
WHERE t.relation = $relation AND s.type = $subjectType
WITH DISTINCT s.key AS subject
RETURN count(subject) AS count, count(CASE WHEN subject < $pivot THEN 1 END) AS below, count(CASE WHEN subject = $pivot THEN 1 END) > 0 AS has;

// name: drop-generation-edges
// Deletes up to 10000 edges of one generation's flats. Edges go first, in bounded batches: a DETACH DELETE of a few
// thousand nodes with many edges would not fit in one transaction's memory. Every flat has `public` set, so the
// (gen, public) index finds them.
MATCH (n:Flat) USING INDEX n:Flat(gen, public) WHERE n.gen = $gen AND n.public IS NOT NULL
MATCH (n)-[r]-()
WITH DISTINCT r LIMIT 10000
DELETE r
RETURN count(*) AS deleted;

// name: drop-generation
// Deletes up to 5000 of one generation's flats, once their edges are gone.
MATCH (n:Flat) USING INDEX n:Flat(gen, public) WHERE n.gen = $gen AND n.public IS NOT NULL
WITH n LIMIT 5000
DETACH DELETE n
RETURN count(*) AS deleted;

// name: drop-old-edges
// The same for every node of an older format's label (spliced in): its edges first, then its nodes.
MATCH (n:__LABEL__)-[r]-()
WITH DISTINCT r LIMIT 10000
DELETE r
RETURN count(*) AS deleted;

// name: drop-old-nodes
MATCH (n:__LABEL__)
WITH n LIMIT 5000
DETACH DELETE n
RETURN count(*) AS deleted;
