// The tuple graph: one node per object (labelled with its type), a TUPLE edge per tuple, a GRANT edge per direct grant.
// Type labels are written as parameters ($(…)), checked against the type-name pattern by the adapter first; the reads that
// scan a type's label have it spliced in, checked the same way.

// name: put-edges
// rows = [{subject, subjectType, subjectId, resource, resourceType, resourceId, key, name}], of any types: the type
// labels are dynamic ($(…)), so one plan serves every label pair (a plan per pair cost 92 ms at each pair's first use).
// The SET clause is spliced in: the rebuild's mark when a rebuild writes (plain writes leave an edge's mark as it is), and for
// TUPLE edges the list fields their admin list is indexed on (see listing.cypher).
UNWIND $rows AS row
MERGE (s:Object {key: row.subject}) ON CREATE SET s:$(row.subjectType), s.type = row.subjectType, s.id = row.subjectId
MERGE (o:Object {key: row.resource}) ON CREATE SET o:$(row.resourceType), o.type = row.resourceType, o.id = row.resourceId
MERGE (s)-[t:__EDGE__ {key: row.key}]->(o) ON CREATE SET t.__NAME_PROPERTY__ = row.name
__SET__;

// name: delete-tuples
UNWIND $keys AS key
MATCH ()-[t:TUPLE {key: key}]->() DELETE t;

// name: delete-grants
UNWIND $keys AS key
MATCH ()-[g:GRANT {key: key}]->() DELETE g;

// name: on
// At most $limit edges: a decision answered from the projection reads a bounded closure (index work passes no bound).
UNWIND $keys AS key
MATCH (s:Object)-[t:TUPLE|GRANT]->(o:Object {key: key})
RETURN s.key AS subject, coalesce(t.relation, t.permission) AS name, o.key AS resource, type(t) = 'GRANT' AS grant
LIMIT $limit;

// name: from
// The resources that any of $keys is the subject of (through a tuple or a grant), at most $limit: one step of a walk
// from a subject up to what it may reach, while a re-index is pending.
UNWIND $keys AS key
MATCH (:Object {key: key})-[:TUPLE|GRANT]->(o:Object)
RETURN DISTINCT o.key AS resource LIMIT $limit;

// name: of-type
// Objects of one type (label spliced in), at most $limit: the candidates of a list whose permission may be public.
MATCH (o:__TYPE_LABEL__)
RETURN o.key AS key LIMIT $limit;

// name: direct
MATCH (s:Object {key: $subject})-[t:TUPLE|GRANT]->(o:Object {key: $resource})
RETURN s.key AS subject, coalesce(t.relation, t.permission) AS name, o.key AS resource, type(t) = 'GRANT' AS grant;

// name: objects-of-type-after
// Keys of the objects of one type after $after, in key order: a range seek on the object key (keys are `Type:id`, so the
// type's objects are exactly those in ['Type:', 'Type;')).
MATCH (o:Object) WHERE o.key > $after AND o.key < $end
RETURN o.key AS key ORDER BY key LIMIT $limit;

// name: touching-objects
// The tuples and grants on the objects $keys (all of type $prefix), and the tuples from them to objects of other types
// (one to an object of the same type is listed with its resource): what a definition change of that type re-indexes.
UNWIND $keys AS key
MATCH (o:Object {key: key})
CALL (o) {
  MATCH (s:Object)-[t:TUPLE|GRANT]->(o)
  RETURN s.key AS subject, coalesce(t.relation, t.permission) AS name, o.key AS resource, type(t) = 'GRANT' AS grant
  UNION ALL
  MATCH (o)-[t:TUPLE]->(r:Object) WHERE NOT r.key STARTS WITH $prefix
  RETURN o.key AS subject, t.relation AS name, r.key AS resource, false AS grant
}
RETURN subject, name, resource, grant;

// name: tuples-after
MATCH ()-[t:TUPLE]->() WHERE t.key > $after
RETURN t.key AS key, coalesce(t.mark = $mark, false) AS marked ORDER BY key LIMIT $limit;

// name: grants-after
MATCH ()-[g:GRANT]->() WHERE g.key > $after
RETURN g.key AS key, coalesce(g.mark = $mark, false) AS marked ORDER BY key LIMIT $limit;

// name: tuples-between
// Edges on some path from the subject to the resource (depth-bounded), for /evaluate.
MATCH (s:Object {key: $subject}), (o:Object {key: $resource})
CALL (s) { MATCH (s)-[:TUPLE]->{1,10}(x:Object) WITH collect(DISTINCT x) AS xs RETURN xs + [s] AS forward }
CALL (o) { MATCH (y:Object)-[:TUPLE]->{1,10}(o) WITH collect(DISTINCT y) AS ys RETURN ys + [o] AS backward }
WITH [n IN forward WHERE n IN backward] AS between
UNWIND between AS a
MATCH (a)-[t:TUPLE]->(b:Object) WHERE b IN between
RETURN DISTINCT a.key AS subject, t.relation AS relation, b.key AS resource
LIMIT 10000;

// name: named-as-subject
// Objects that are the subject of at least one valid tuple or grant; items = [{key, tuples: ["Type#rel"], grants: ["Type#perm"]}]
// list the resource types and names under which the object's type is allowed.
UNWIND $items AS it
MATCH (o:Object {key: it.key})
WHERE EXISTS { MATCH (o)-[t:TUPLE]->(x:Object) WHERE x.type + '#' + t.relation IN it.tuples }
   OR EXISTS { MATCH (o)-[g:GRANT]->(x:Object) WHERE x.type + '#' + g.permission IN it.grants }
RETURN o.key AS key;
