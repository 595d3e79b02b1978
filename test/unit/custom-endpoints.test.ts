// Custom endpoint definitions compiled against a schema, and the filter and fields a call's inputs resolve to.
import { compile, type EndpointDefinition } from '../../src/engine/custom-endpoints.js';
import { readInputs, resolve } from '../../src/engine/endpoint-inputs.js';
import { parseFields } from '../../src/engine/schema-fields.js';

const { fields } = parseFields({ title: { type: 'String', required: true }, n: 'Number', due: 'Date', done: 'Boolean', meta: 'JSON' }, new Set());
const task = { name: 'Task', fields, guarded: true };
const def = (d: Partial<EndpointDefinition>): EndpointDefinition => ({ name: 'e', operation: 'find', schema: 'Task', inputs: {}, filter: {}, assign: {}, auth: 'token', ...d });
const paths = (d: Partial<EndpointDefinition>) => compile(def(d), task).problems.map((p) => p.path);

describe('compile', () => {
  it('accepts fields, built-in fields, inputs, the caller and constants of the right types', () => {
    const d = def({
      inputs: { min: { type: 'Number', from: 'query' }, since: { type: 'Date', from: 'query' }, id: { type: 'ObjectId', from: 'query' } },
      filter: { n: { gte: { input: 'min' } }, createdAt: { gt: { input: 'since' } }, _id: { ne: { input: 'id' } }, done: false, title: { caller: 'id' } },
      sort: '-due',
      scope: 'Team:t1',
    });
    const { plan, problems } = compile(d, task);
    expect(problems).toEqual([]);
    expect(plan.filter.map((t) => `${t.field} ${t.op}`)).toEqual(['n gte', 'createdAt gt', '_id ne', 'done eq', 'title eq']);
    expect(plan.paged).toBe(true);
  });

  it('names every problem by its path', () => {
    expect(paths({ filter: { nope: 1 } })).toEqual(['filter.nope']);
    expect(paths({ filter: { constructor: 1 } })).toEqual(['filter.constructor']);
    expect(paths({ filter: { meta: 1 } })).toEqual(['filter.meta']);
    expect(paths({ filter: { n: 'ten' } })).toEqual(['filter.n']);
    expect(paths({ filter: { done: { gt: true } } })).toEqual(['filter.done']);
    expect(paths({ filter: { n: { caller: 'id' } } })).toEqual(['filter.n']);
    expect(paths({ inputs: { s: { type: 'String', from: 'query' } }, filter: { n: { input: 's' } } })).toEqual(['filter.n']);
    expect(paths({ scope: 'User:u' })).toEqual(['scope']);
    expect(paths({ inputs: { skip: { type: 'Number', from: 'query' } }, filter: { n: { input: 'skip' } } })).toEqual(['inputs.skip']);
    expect(paths({ operation: 'create', assign: { n: 1 } })).toEqual(['assign.title']);
    expect(paths({ operation: 'create', filter: { n: 1 }, assign: { title: 'x' } })).toEqual(['filter']);
    expect(paths({ operation: 'delete' })).toEqual(['filter']);
    expect(paths({ operation: 'update', filter: { n: 1 } })).toEqual(['assign']);
    expect(paths({ operation: 'update', filter: { n: 1 }, assign: { title: 'x' }, sort: 'n' })).toEqual(['sort']);
    expect(paths({ auth: 'none' })).toEqual(['auth']);
  });
});

describe('inputs', () => {
  const d = def({
    inputs: { min: { type: 'Number', from: 'query' }, title: { type: 'String', required: true, from: 'body' }, id: { type: 'ObjectId', required: true, from: 'path' } },
    filter: { n: { gte: { input: 'min' } }, title: { input: 'title' }, _id: { input: 'id' } },
  });
  const plan = compile(d, task).plan;

  it('types each input, names the ones that do not fit, and refuses unknown ones', () => {
    const ok = readInputs(d, true, { query: { min: '2.5', limit: '10' }, body: { title: '$ne' }, path: 'abc' });
    expect(ok.problems).toEqual([]);
    expect(ok.values).toEqual({ min: 2.5, title: '$ne', id: 'abc' });
    expect(ok.page).toEqual({ skip: 0, limit: 10 });
    const bad = readInputs(d, true, { query: { min: 'x', other: '1' }, body: { title: { $gt: '' } } });
    expect(bad.problems.map((p) => p.path).sort()).toEqual(['body.title', 'path.id', 'query.min', 'query.other']);
  });

  it('resolves values under the fields and operators of the definition, leaving out absent optional inputs', () => {
    expect(resolve(plan, { title: '$where', id: 'x' }, 'u1').filter).toEqual({ title: '$where', _id: 'x' });
    expect(resolve(plan, { min: 3, title: 't', id: 'x' }, 'u1').filter).toEqual({ n: { $gte: 3 }, title: 't', _id: 'x' });
  });
});
