// Statements the flat-nodes and leopard variants share (bench/index-shapes): schema, projection, meta, list branches.

// name: schema-object-key
CREATE CONSTRAINT object_key IF NOT EXISTS FOR (o:Object) REQUIRE o.key IS UNIQUE;

// name: schema-tuple-key
CREATE CONSTRAINT tuple_key IF NOT EXISTS FOR ()-[t:TUPLE]-() REQUIRE t.key IS UNIQUE;

// name: schema-meta-id
CREATE CONSTRAINT meta_id IF NOT EXISTS FOR (m:IndexMeta) REQUIRE m.id IS UNIQUE;

// name: meta
MERGE (m:IndexMeta {id: 'meta'}) ON CREATE SET m.gen = 1, m.building = null
RETURN m.gen AS gen, m.building AS building;

// name: meta-read
MATCH (m:IndexMeta {id: 'meta'})
RETURN m.gen AS gen, m.building AS building;

// name: put-edges
// As the product's, without the edge's mark and list fields (resourceType, keyLower) and their indexes.
UNWIND $rows AS row
MERGE (s:Object {key: row.subject}) ON CREATE SET s:__SUBJECT_LABEL__, s.type = row.subjectType, s.id = row.subjectId
MERGE (o:Object {key: row.resource}) ON CREATE SET o:__RESOURCE_LABEL__, o.type = row.resourceType, o.id = row.resourceId
MERGE (s)-[t:TUPLE {key: row.key}]->(o) ON CREATE SET t.relation = row.name;

// name: list
// The first page of objects of one type (label spliced in) the subject may act on: the branches spliced in are those
// the model can make non-empty for this subject type, action and type (bench/index-shapes/shapes.ts).
MATCH (m:IndexMeta {id: 'meta'})
WITH m.gen AS gen
OPTIONAL MATCH (s:Object {key: $subject})
CALL (s, gen) {
  __BRANCHES__
}
WITH DISTINCT obj ORDER BY obj LIMIT 100
RETURN obj;

// name: list-direct
MATCH (s)-[u:TUPLE]->(o:__TYPE_LABEL__) WHERE u.relation IN $direct
RETURN o.key AS obj;

// name: list-grants
MATCH (s)-[u:GRANT]->(o:__TYPE_LABEL__) WHERE u.permission IN $grants
RETURN o.key AS obj;

// name: list-rel-arrows
MATCH (s)-[u:TUPLE]->(x:Object)-[t:TUPLE]->(o:__TYPE_LABEL__)
WHERE t.relation IN $arrowRels AND u.relation IN $relArrows[t.relation] AND x.type + '#' + u.relation IN $slots
  AND x.type IN $arrowTypes[t.relation]
RETURN o.key AS obj;

// name: list-public-type
MATCH (o:__TYPE_LABEL__)
RETURN o.key AS obj;

// name: list-self
UNWIND $self AS obj
RETURN obj;
