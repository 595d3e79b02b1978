// The tuple graph: one node per object (labelled with its type), one TUPLE edge per tuple.
// Labels are spliced in by the adapter after checking them against the type-name pattern.

// name: put-tuple
MERGE (s:Object {key: $subject}) ON CREATE SET s:__SUBJECT_LABEL__, s.type = $subjectType, s.id = $subjectId
MERGE (o:Object {key: $resource}) ON CREATE SET o:__RESOURCE_LABEL__, o.type = $resourceType, o.id = $resourceId
MERGE (s)-[t:TUPLE {key: $key}]->(o) ON CREATE SET t.relation = $relation;

// name: put-tuples
UNWIND $rows AS row
MERGE (s:Object {key: row.subject}) ON CREATE SET s:__SUBJECT_LABEL__, s.type = row.subjectType, s.id = row.subjectId
MERGE (o:Object {key: row.resource}) ON CREATE SET o:__RESOURCE_LABEL__, o.type = row.resourceType, o.id = row.resourceId
MERGE (s)-[t:TUPLE {key: row.key}]->(o) ON CREATE SET t.relation = row.relation;

// name: tuples-on
UNWIND $keys AS key
MATCH (s:Object)-[t:TUPLE]->(o:Object {key: key})
RETURN s.key AS subject, t.relation AS relation, o.key AS resource;

// name: tuples-of
UNWIND $keys AS key
MATCH (s:Object {key: key})-[t:TUPLE]->(o:Object)
RETURN s.key AS subject, t.relation AS relation, o.key AS resource;

// name: delete-tuple
MATCH ()-[t:TUPLE {key: $key}]->() DELETE t;

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
