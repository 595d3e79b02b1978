// Ready queries for operators in Neo4j Browser (http://127.0.0.1:7474/browser/). Set the parameters first, e.g.
//   :param resource => 'Document:d1'
//   :param action => 'read'
//   :param subject => 'User:alice'
//   :param type => 'Document'
//   :param relations => ['reader', 'owner']   (the relations that $action's definition names, plain or before an arrow)
// Objects are (:Object) nodes labelled with their type (Team, Document, ...) and joined by TUPLE edges (property
// `relation`) and GRANT edges (`permission`): these are the index's direct sets. The only precomputed nodes are the
// flats: (x)-[:FLAT]->(f:Flat {gen, perm, public})-[:GIVES {rel}]->(y) says that holding y#rel gives x's `perm`.

// name: who-can
// Who can do $action on $resource, and through which key: a tuple on it, or a key of a flat that one of its arrow tuples
// leads to (a key `X#r` is held through a tuple S#r@X; `X#p!` is a grant).
MATCH (m:IndexMeta {id: 'meta'}), (o:Object {key: $resource})
CALL (m, o) {
  MATCH (s:Object)-[t:TUPLE]->(o) WHERE t.relation IN $relations
  RETURN s.key AS subject, o.key + '#' + t.relation AS key
  UNION
  MATCH (o)<-[t:TUPLE]-(:Object)-[:FLAT]->(f:Flat)-[k:GIVES]->(y:Object)<-[u:TUPLE|GRANT]-(s:Object)
  WHERE t.relation IN $relations AND f.gen = m.gen AND f.perm = $action AND coalesce(u.relation, u.permission + '!') = k.rel
  RETURN s.key AS subject, y.key + '#' + k.rel AS key
}
RETURN subject, collect(DISTINCT key) AS through
ORDER BY subject;

// name: what-can
// Objects of $type on which $subject can do $action: through its own tuples, or through flats that give a key it holds.
MATCH (m:IndexMeta {id: 'meta'}), (s:Object {key: $subject})
CALL (m, s) {
  MATCH (s)-[t:TUPLE]->(o:Object) WHERE o.type = $type AND t.relation IN $relations
  RETURN o.key AS object
  UNION
  MATCH (s)-[u:TUPLE|GRANT]->(:Object)<-[k:GIVES]-(f:Flat)<-[:FLAT]-(:Object)-[t:TUPLE]->(o:Object)
  WHERE f.gen = m.gen AND f.perm = $action AND coalesce(u.relation, u.permission + '!') = k.rel AND t.relation IN $relations
    AND o.type = $type
  RETURN o.key AS object
}
RETURN DISTINCT object
ORDER BY object;

// name: path
// The tuples that lead from $subject to $resource, as paths to look at (up to 10 hops, 5 paths).
MATCH p = (s:Object {key: $subject})-[:TUPLE*1..10]->(o:Object {key: $resource})
RETURN p
LIMIT 5;
