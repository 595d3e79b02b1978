// Custom endpoint definitions for operators: create, list, get, patch and delete, each checked against its schema when saved.
import { compile, type EndpointDefinition } from '../../engine/custom-endpoints.js';
import { AppError } from '../../errors.js';
import type { EndpointRecord, EndpointStore } from '../../stores/ports/custom-endpoints.js';
import type { Schemas } from './schemas.js';

/** How many definitions may be stored: each call reads one by name, but listing and reviewing them should stay humane. */
export const MAX_ENDPOINTS = 1000;

/** The keys a definition may hold, in the order they are stored and shown. */
const KEYS = ['name', 'description', 'operation', 'schema', 'inputs', 'filter', 'assign', 'scope', 'auth', 'paged', 'sort'] as const;
export type EndpointInput = Omit<EndpointDefinition, 'inputs' | 'filter' | 'assign' | 'auth'> & Partial<Pick<EndpointDefinition, 'inputs' | 'filter' | 'assign' | 'auth'>>;
/** A change: any key but the name; null removes an optional one. */
export type EndpointChange = { [K in Exclude<keyof EndpointDefinition, 'name'>]?: EndpointDefinition[K] | null };

export const endpointView = (r: EndpointRecord) => {
  const out: Record<string, unknown> = {};
  for (const k of KEYS) if (r[k] !== undefined) out[k] = r[k];
  return { ...out, createdAt: r.createdAt, updatedAt: r.updatedAt } as EndpointDefinition & { createdAt: string; updatedAt: string };
};

export class CustomEndpoints {
  constructor(private readonly deps: { store: EndpointStore; schemas: Schemas }) {}

  /** The stored definition, or 404 FUNCTION_NOT_FOUND. */
  async get(name: string): Promise<EndpointRecord> {
    const r = await this.deps.store.get(name);
    if (!r) throw new AppError('FUNCTION_NOT_FOUND', `No custom endpoint ${name}`);
    return r;
  }

  async list(skip: number, limit: number) {
    const page = await this.deps.store.list(skip, limit);
    return { endpoints: page.items.map(endpointView), count: page.count };
  }

  /** Refuses (400, every problem in details) a definition naming a schema, field or input that does not exist. */
  private async check(def: EndpointDefinition): Promise<void> {
    let schema;
    try {
      schema = await this.deps.schemas.get(def.schema);
    } catch (e) {
      if (e instanceof AppError && e.code === 'SCHEMA_NOT_FOUND') {
        throw new AppError('VALIDATION_FAILED', `No schema ${def.schema}`, [{ path: 'schema', message: `no schema ${def.schema}` }]);
      }
      throw e;
    }
    const { problems } = compile(def, { name: schema.name, fields: schema.fields, guarded: schema.serviceOptions.authorization.enabled });
    if (problems.length) {
      const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
      throw new AppError('VALIDATION_FAILED', `The custom endpoint is not valid: ${problems[0]!.path} ${problems[0]!.message}${more}`, problems);
    }
  }

  async create(input: EndpointInput) {
    const def = normal(input);
    await this.check(def);
    // Counted before the insert: writers racing at the bound may pass it by a few, which the bound tolerates.
    if ((await this.deps.store.count()) >= MAX_ENDPOINTS) {
      throw new AppError('VALIDATION_FAILED', `At most ${MAX_ENDPOINTS} custom endpoints may be stored; delete one first`, [{ path: 'name',
        message: 'too many custom endpoints' }]);
    }
    const now = new Date().toISOString();
    const record: EndpointRecord = { ...def, _id: def.name, createdAt: now, updatedAt: now };
    if (!(await this.deps.store.insert(record))) throw new AppError('ALREADY_EXISTS', `A custom endpoint ${def.name} exists`);
    return endpointView(record);
  }

  async patch(name: string, change: EndpointChange) {
    const before = await this.get(name);
    const merged: Record<string, unknown> = { ...endpointView(before) };
    for (const [k, v] of Object.entries(change)) {
      if (v === null) delete merged[k];
      else if (v !== undefined) merged[k] = v;
    }
    const def = normal(merged as unknown as EndpointInput);
    await this.check(def);
    const record: EndpointRecord = { ...def, _id: name, createdAt: before.createdAt, updatedAt: new Date().toISOString() };
    if (!(await this.deps.store.replace(record))) throw new AppError('FUNCTION_NOT_FOUND', `No custom endpoint ${name}`);
    return endpointView(record);
  }

  async remove(name: string) {
    const gone = await this.deps.store.delete(name);
    if (!gone) throw new AppError('FUNCTION_NOT_FOUND', `No custom endpoint ${name}`);
    return { deleted: endpointView(gone) };
  }
}

/** Defaults filled in, and only the keys a definition has (a patch's merge may carry the timestamps). */
function normal(input: EndpointInput): EndpointDefinition {
  const out: Record<string, unknown> = { inputs: {}, filter: {}, assign: {}, auth: 'token' };
  for (const k of KEYS) if ((input as Record<string, unknown>)[k] !== undefined) out[k] = (input as Record<string, unknown>)[k];
  return out as unknown as EndpointDefinition;
}
