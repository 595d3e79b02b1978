// Runs a custom endpoint for a client: its definition checked against the schema as it is now, typed inputs, and the
// Documents service doing the work, so each call is authorized through the index exactly as the schema's own routes.
import { compile } from '../../engine/custom-endpoints.js';
import { readInputs, resolve, type CallInput } from '../../engine/endpoint-inputs.js';
import type { Problem } from '../../engine/schema-fields.js';
import { AppError } from '../../errors.js';
import type { SchemaRecord } from '../../stores/ports/schemas.js';
import type { ClientAuth } from '../client-auth.js';
import type { CustomEndpoints } from './custom-endpoints.js';
import type { Documents } from './documents.js';
import type { Schemas } from './schemas.js';

/** Documents one update or delete may change: more is refused, so a loose filter cannot sweep a collection. */
export const MAX_WRITES = 100;
/** The one page an unpaged find answers. */
const UNPAGED = 1000;
const TEAM = /^Team:[^\s#@]+$/;

const invalid = (problems: Problem[], what: string) => {
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
  return new AppError('VALIDATION_FAILED', `${what}: ${problems[0]!.path} ${problems[0]!.message}${more}`, problems);
};

export class EndpointCalls {
  constructor(private readonly deps: { endpoints: CustomEndpoints; schemas: Schemas; documents: Documents; clientAuth: ClientAuth }) {}

  /**
   * A token, when one is sent, is always checked (a bad one is 401 even where none is needed). Without one, only an
   * endpoint saved with `auth: 'none'` runs, and only while it is a find on a schema without authorization.
   */
  async call(name: string, method: 'get' | 'post', input: CallInput, authorization: string | undefined) {
    const def = await this.deps.endpoints.get(name);
    const userId = authorization === undefined ? null : (await this.deps.clientAuth.authenticate(authorization)).userId;
    if (userId === null && def.auth !== 'none') throw new AppError('UNAUTHENTICATED', `Custom endpoint ${name} needs a token`);
    const s = await this.schema(name, def.schema);
    const guarded = s.serviceOptions.authorization.enabled;
    const { plan, problems } = compile(def, { name: s.name, fields: s.fields, guarded });
    const broken = problems.filter((p) => p.path !== 'auth');
    if (broken.length) {
      throw new AppError('FUNCTION_OUT_OF_DATE', `Custom endpoint ${name} no longer fits schema ${s.name}: ${broken[0]!.path} ${broken[0]!.message}`, broken);
    }
    // Saved open, but the schema has had authorization switched on since: a token is needed now.
    if (userId === null && (guarded || def.operation !== 'find')) {
      throw new AppError('UNAUTHENTICATED', `Custom endpoint ${name} needs a token (${s.name} has authorization enabled)`);
    }
    if (method === 'get' && def.operation !== 'find') {
      throw new AppError('VALIDATION_FAILED', `Custom endpoint ${name} is a ${def.operation}: call it with POST`, [{ path: 'method', message: 'use POST' }]);
    }
    const read = readInputs(def, plan.paged, input);
    if (read.problems.length) throw invalid(read.problems, `Invalid input to ${name}`);
    const { filter, set, scope } = resolve(plan, read.values, userId);
    if (scope !== undefined && !TEAM.test(scope)) {
      const at = plan.scope?.kind === 'input' ? `${def.inputs[plan.scope.name]!.from}.${plan.scope.name}` : 'scope';
      throw invalid([{ path: at, message: 'a scope is a team: Team:<id>' }], `Invalid input to ${name}`);
    }
    const { documents } = this.deps;
    switch (def.operation) {
      case 'find': {
        const page = plan.paged ? read.page : { skip: 0, limit: UNPAGED };
        return { status: 200, body: await documents.query(userId, s, { filter, sort: plan.sort, ...page, scope }) };
      }
      case 'create':
        return { status: 201, body: await documents.create(userId!, s.name, set, scope) };
      default: {
        const matched = await documents.query(userId, s, { filter, skip: 0, limit: MAX_WRITES });
        if (matched.count === 0) throw new AppError('NOT_FOUND', `No ${s.name} you can read matches`);
        if (matched.count > MAX_WRITES) {
          throw new AppError('LIST_TOO_LARGE', `${matched.count} documents match; a custom ${def.operation} changes at most ${MAX_WRITES}`);
        }
        // Every matched document gets the same values, so two of them cannot both take a unique field: refused before
        // any is written (one by one, the second would fail after the first had changed).
        const unique = Object.keys(set).find((f) => s.fields[f]?.unique === true);
        if (def.operation === 'update' && unique && matched.count > 1) {
          throw new AppError('ALREADY_EXISTS', `${matched.count} documents match, and ${unique} is unique: an update may give it to one only`);
        }
        const ids = matched.documents.map((d) => d._id);
        const changed = await documents.changeAll(userId!, s, ids, def.operation === 'delete' ? 'delete' : { set });
        return { status: 200, body: { documents: changed, count: changed.length } };
      }
    }
  }

  private async schema(name: string, schema: string): Promise<SchemaRecord> {
    try {
      return await this.deps.schemas.get(schema);
    } catch (e) {
      if (e instanceof AppError && e.code === 'SCHEMA_NOT_FOUND') {
        throw new AppError('FUNCTION_OUT_OF_DATE', `Custom endpoint ${name} refers to schema ${schema}, which no longer exists`, [{ path: 'schema',
          message: `no schema ${schema}` }]);
      }
      throw e;
    }
  }
}
