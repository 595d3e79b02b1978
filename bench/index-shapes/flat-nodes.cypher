// The flat-nodes variant: a (:Flat) node per (flat source x, permission b) with GIVES edges to the objects of its keys.

// name: schema-flat-id
CREATE CONSTRAINT flat_id IF NOT EXISTS FOR (f:Flat) REQUIRE f.id IS UNIQUE;

// name: schema-flat-public
CREATE INDEX flat_public IF NOT EXISTS FOR (f:Flat) ON (f.gen, f.public);

// name: flats-depending-on
// Owners of flats computed from tuples on any of $objects.
UNWIND $objects AS o
MATCH (d:Object {key: o})<-[:DEPENDS]-(f:Flat)
WHERE f.gen = $gen
RETURN DISTINCT f.obj AS obj;

// name: flattened
// Which of $objects have flats already.
UNWIND $objects AS o
MATCH (x:Object {key: o})
WHERE EXISTS { MATCH (x)-[:FLAT]->(f:Flat) WHERE f.gen = $gen }
RETURN o AS obj;

// name: put-flats
// flats = [{obj, perm, public, hash, fresh, keys: [{y, rel, slot}], deps}]: each replaces the flat of (obj, perm).
UNWIND $flats AS fl
MATCH (x:Object {key: fl.obj})
CALL (fl) {
  WITH fl WHERE NOT fl.fresh
  MATCH (old:Flat {id: toString($gen) + '|' + fl.obj + '#' + fl.perm})
  DETACH DELETE old
}
CREATE (x)-[:FLAT]->(f:Flat {id: toString($gen) + '|' + fl.obj + '#' + fl.perm, gen: $gen, obj: fl.obj, perm: fl.perm,
                             public: fl.public, hash: fl.hash})
WITH f, fl
CALL (f, fl) {
  UNWIND fl.keys AS k
  MATCH (y:Object {key: k.y})
  CREATE (f)-[:GIVES {rel: k.rel, slot: k.slot}]->(y)
}
CALL (f, fl) {
  UNWIND fl.deps AS d
  MATCH (n:Object {key: d})
  CREATE (f)-[:DEPENDS]->(n)
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
      EXISTS {
        MATCH (x)-[:FLAT]->(f:Flat)
        WHERE f.gen = gen AND f.perm IN $arrows[t.relation] AND (f.public
          // From the flat's few keys to the subject (as today's check goes from the row's keys to the actor), one join
          // per object y of the keys, not per key (a flat holds five keys of each ancestor team): each inner test joins
          // two bound nodes, which Neo4j expands from the side with fewer edges.
          OR EXISTS { MATCH (f)-[:GIVES]->(y:Object) WITH DISTINCT y
                      WHERE EXISTS { MATCH (y)<-[u:TUPLE|GRANT]-(s)
                        WHERE EXISTS { MATCH (f)-[g:GIVES]->(y) WHERE g.slot IN $slots AND g.rel = coalesce(u.relation, u.permission + '!') } } })
      }
      OR EXISTS { MATCH (s)-[u:TUPLE]->(x) WHERE u.relation IN $relArrows[t.relation] AND x.type + '#' + u.relation IN $slots })
  })) AS allowed;

// name: list-flats
// The flats' permission is checked against every arrow target before the sources' tuples are expanded (a source
// has a flat per permission of its type).
MATCH (s)-[u:TUPLE|GRANT]->(:Object)<-[g:GIVES]-(f:Flat)<-[:FLAT]-(x:Object)-[t:TUPLE]->(o:__TYPE_LABEL__)
WHERE g.slot IN $slots AND coalesce(u.relation, u.permission + '!') = g.rel AND f.gen = gen
  AND f.perm IN $targets
  AND t.relation IN $arrowRels AND f.perm IN $arrows[t.relation] AND x.type IN $arrowTypes[t.relation]
RETURN o.key AS obj;

// name: list-public-flats
MATCH (f:Flat) USING INDEX f:Flat(gen, public) WHERE f.gen = gen AND f.public = true
MATCH (f)<-[:FLAT]-(x:Object)-[t:TUPLE]->(o:__TYPE_LABEL__)
WHERE t.relation IN $arrowRels AND f.perm IN $arrows[t.relation] AND x.type IN $arrowTypes[t.relation]
RETURN o.key AS obj;
