// Ready queries for operators in Neo4j Browser (http://127.0.0.1:7474/browser/). Set the parameters first, e.g.
//   :param resource => 'Document:d1'
//   :param action => 'read'
//   :param subject => 'User:alice'
//   :param type => 'Document'
// Objects are (:Object) nodes labelled with their type (Team, Document, ...) and joined by TUPLE edges
// (property `relation`) and GRANT edges (`permission`). Index nodes (IndexRow, IndexFlat, IndexKey, Actor,
// IndexMeta) are apart from them and carry the generation in their ids.

// name: who-can
// Who can do $action on $resource, and through which key (a key `X#r` is held through a tuple S#r@X; `X#p!` is a grant).
MATCH (m:IndexMeta {id: 'meta'})
WITH toString(m.gen) + '|' AS g
MATCH (r:IndexRow {id: g + $resource + '#' + $action})-[:REF*0..1]->()-[:GIVES]->(k:IndexKey)<-[:HOLDS]-(a:Actor)
RETURN a.subject AS subject, collect(DISTINCT k.key) AS through
ORDER BY subject;

// name: what-can
// Objects of $type on which $subject can do $action (public objects included).
MATCH (m:IndexMeta {id: 'meta'})
WITH m.gen AS gen, toString(m.gen) + '|' AS g
CALL (gen, g) {
  MATCH (:Actor {id: g + $subject})-[:HOLDS]->(:IndexKey)<-[:GIVES]-()<-[:REF*0..1]-(r:IndexRow {type: $type, action: $action})
  RETURN r.obj AS object
  UNION
  MATCH (r:IndexRow {gen: gen, type: $type, action: $action, public: true})
  RETURN r.obj AS object
}
RETURN DISTINCT object
ORDER BY object;

// name: path
// The tuples that lead from $subject to $resource, as paths to look at (up to 10 hops, 5 paths).
MATCH p = (s:Object {key: $subject})-[:TUPLE*1..10]->(o:Object {key: $resource})
RETURN p
LIMIT 5;
