// Schema field rules and document checks (pure).
import { checkDocument, equalityFilters, parseFields } from '../../src/engine/schema-fields.js';

const known = new Set(['Project']);

describe('schema fields', () => {
  it('normalises short and long forms', () => {
    const { fields, problems } = parseFields({ title: 'String', n: { type: 'Number', required: true, default: 3 }, p: { type: 'Relation', model: 'Project' } }, known);
    expect(problems).toEqual([]);
    expect(fields).toEqual({
      title: { type: 'String', required: false, unique: false },
      n: { type: 'Number', required: true, unique: false, default: 3 },
      p: { type: 'Relation', required: false, unique: false, model: 'Project' },
    });
  });
  it.each([
    [{ x: 'Text' }, 'fields.x.type'],
    [{ x: { type: 'Relation' } }, 'fields.x.model'],
    [{ x: { type: 'Relation', model: 'Nope' } }, 'fields.x.model'],
    [{ x: { type: 'String', model: 'Project' } }, 'fields.x.model'],
    [{ x: { type: 'Number', default: 'three' } }, 'fields.x.default'],
    [{ x: { type: 'String', indexed: true } }, 'fields.x'],
    [{ _id: 'String' }, 'fields._id'],
    [{ 'a-b': 'String' }, 'fields.a-b'],
  ])('refuses %j', (raw, path) => {
    expect(parseFields(raw, known).problems.map((p) => p.path)).toContain(path);
  });
});

describe('documents against fields', () => {
  const { fields } = parseFields({ title: { type: 'String', required: true }, n: { type: 'Number', default: 1 }, when: 'Date', meta: 'JSON' }, known);
  it('fills defaults and needs required fields on create only', () => {
    expect(checkDocument(fields, { title: 'a' }, 'create')).toEqual({ doc: { title: 'a', n: 1 }, problems: [] });
    expect(checkDocument(fields, { n: 2 }, 'create').problems).toEqual([{ path: 'body.title', message: 'is required' }]);
    expect(checkDocument(fields, { n: 2 }, 'patch')).toEqual({ doc: { n: 2 }, problems: [] });
  });
  it('checks types, normalises dates and refuses unknown fields', () => {
    expect(checkDocument(fields, { title: 1, n: 'x', when: 'not a date', other: 1 }, 'patch').problems.map((p) => p.path).sort())
      .toEqual(['body.n', 'body.other', 'body.title', 'body.when']);
    expect(checkDocument(fields, { when: '2026-01-02' }, 'patch').doc.when).toBe('2026-01-02T00:00:00.000Z');
    expect(checkDocument(fields, { meta: { any: ['thing'] } }, 'patch').problems).toEqual([]);
  });
  it('reads equality filters as their field type', () => {
    expect(equalityFilters(fields, { title: 'a', n: '2' })).toEqual({ filter: { title: 'a', n: 2 }, problems: [] });
    expect(equalityFilters(fields, { n: 'two', meta: 'x', subject: 'User:u' }).problems.map((p) => p.path).sort())
      .toEqual(['query.meta', 'query.n', 'query.subject']);
  });
});
