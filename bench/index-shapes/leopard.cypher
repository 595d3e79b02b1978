// The leopard variant: a flat as GIVES edges on its source object x itself (GROUP2GROUP), a public flat as a PUBLIC self edge.

// name: flats-depending-on
// The object is sought, then expanded from (WITH): planned on the empty store (the first unit), the statement as one
// pattern kept plans that scanned every object, or every DEPENDS edge, for each object (5 s of Neo4j CPU in 10 calls).
UNWIND $objects AS o
MATCH (n:Object {key: o})
WITH n
MATCH (n)<-[d:DEPENDS]-(x)
WHERE d.gen = $gen
RETURN DISTINCT x.key AS obj;

// name: flattened
UNWIND $objects AS o
MATCH (x:Object {key: o})
WHERE EXISTS { MATCH (x)-[g:GIVES]->() WHERE g.gen = $gen }
RETURN o AS obj;

// name: put-flats
// objects = [{obj, fresh, deps, flats: [{perm, public, keys: [{y, rel, slot}]}]}]: replaces every flat of each object.
UNWIND $objects AS ob
MATCH (x:Object {key: ob.obj})
CALL (x, ob) {
  WITH x, ob WHERE NOT ob.fresh
  MATCH (x)-[g:GIVES|DEPENDS|PUBLIC]->() WHERE g.gen = $gen
  DELETE g
}
CALL (x, ob) {
  UNWIND ob.flats AS fl
  UNWIND fl.keys AS k
  MATCH (y:Object {key: k.y})
  CREATE (x)-[:GIVES {gen: $gen, perm: fl.perm, rel: k.rel, slot: k.slot}]->(y)
}
CALL (x, ob) {
  UNWIND [fl IN ob.flats WHERE fl.public] AS fl
  CREATE (x)-[:PUBLIC {gen: $gen, perm: fl.perm}]->(x)
}
CALL (x, ob) {
  UNWIND ob.deps AS d
  MATCH (n:Object {key: d})
  CREATE (x)-[:DEPENDS {gen: $gen}]->(n)
}
RETURN count(*) AS written;

// name: can
MATCH (m:IndexMeta {id: 'meta'})
WITH m.gen AS gen
OPTIONAL MATCH (o:Object {key: $object})
OPTIONAL MATCH (s:Object {key: $subject})
RETURN $subject = $object OR $public OR (o IS NOT NULL AND (
  EXISTS { MATCH (s)-[u:TUPLE]->(o) WHERE u.relation IN $direct }
  OR EXISTS { MATCH (s)-[u:GRANT]->(o) WHERE u.permission IN $grants }
  OR EXISTS {
    MATCH (x:Object)-[t:TUPLE]->(o)
    WHERE t.relation IN $arrowRels AND x.type IN $arrowTypes[t.relation] AND (
      EXISTS { MATCH (x)-[p:PUBLIC]->(x) WHERE p.gen = gen AND p.perm IN $arrows[t.relation] }
      // As flat-nodes: one join per object y of x's keys for the target permission, not per key.
      OR EXISTS { MATCH (x)-[g:GIVES]->(y:Object) WHERE g.gen = gen AND g.perm IN $arrows[t.relation] WITH DISTINCT y
                  WHERE EXISTS { MATCH (y)<-[u:TUPLE|GRANT]-(s)
                    WHERE EXISTS { MATCH (x)-[g2:GIVES]->(y) WHERE g2.gen = gen AND g2.perm IN $arrows[t.relation]
                                   AND g2.slot IN $slots AND g2.rel = coalesce(u.relation, u.permission + '!') } } }
      OR EXISTS { MATCH (s)-[u:TUPLE]->(x) WHERE u.relation IN $relArrows[t.relation] AND x.type + '#' + u.relation IN $slots })
  })) AS allowed;

// name: list-flats
// The flats' permission is checked against every arrow target before the sources' tuples are expanded (a source
// has a flat per permission of its type).
MATCH (s)-[u:TUPLE|GRANT]->(:Object)<-[g:GIVES]-(x:Object)-[t:TUPLE]->(o:__TYPE_LABEL__)
WHERE g.gen = gen AND g.slot IN $slots AND coalesce(u.relation, u.permission + '!') = g.rel
  AND g.perm IN $targets
  AND t.relation IN $arrowRels AND g.perm IN $arrows[t.relation] AND x.type IN $arrowTypes[t.relation]
RETURN o.key AS obj;

// name: list-public-flats
MATCH (x:Object)-[p:PUBLIC]->(x) WHERE p.gen = gen
MATCH (x)-[t:TUPLE]->(o:__TYPE_LABEL__)
WHERE t.relation IN $arrowRels AND p.perm IN $arrows[t.relation] AND x.type IN $arrowTypes[t.relation]
RETURN o.key AS obj;
