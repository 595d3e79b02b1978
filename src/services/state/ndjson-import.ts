// Reading an NDJSON state upload: the header line, then each tuple or grant line checked and spooled, then the end line.
import { AppError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { unstorable } from '../../engine/storable.js';
import type { Carried } from './apply.js';
import { stateHeader, stateLine, type StateHeader, type StateLine } from './document.js';
import { asItem, batches, BATCH, lineOf, PROGRESS_EVERY, type Item, type ItemLine } from './items.js';
import type { Spool } from './ndjson.js';
import { inline, isModel, itemProblem, MAX_PROBLEMS, refuse, type Plan, type Problem } from './plan.js';

/** An upload whose every line is valid: its header, the plan its lines were checked against, and its items to apply. */
export interface CheckedUpload {
  header: StateHeader;
  checked: Plan;
  carried: Carried;
  items: () => AsyncIterable<Item[]>;
}

type Lines = AsyncIterator<{ n: number; text: string }>;

function parseLine<T>(text: string, n: number,
  schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } } }): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError('VALIDATION_FAILED', `Line ${n} is not JSON`, [{ line: n }]);
  }
  // A streamed body skips the pipeline's check for what MongoDB cannot hold (a NUL in an id, a `$` key in the header's
  // config): found here, with its line, it refuses the upload before anything is written instead of failing mid-import.
  const bad = unstorable(value, 'line');
  if (bad) throw new AppError('VALIDATION_FAILED', `Line ${n}: ${bad.path} ${bad.message}`, [{ line: n, path: bad.path, message: bad.message }]);
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  throw new AppError('VALIDATION_FAILED', `Line ${n}: ${r.error.issues.map((i) => `${i.path.map(String).join('.') || 'line'} ${i.message}`).join('; ')}`,
    r.error.issues.map((i) => ({ line: n, path: i.path.map(String).join('.'), message: i.message })));
}

/**
 * Reads the upload to its end: the header line, planned with `plan`, then every line validated against the definitions
 * the import leaves in place and spooled. Refuses the upload, having applied nothing, when any line is not valid or
 * the end line does not match what came before.
 */
export async function checkUpload(it: Lines, spool: Spool, plan: (header: StateHeader) => Promise<Plan>, log: Logger): Promise<CheckedUpload> {
  const first = await it.next();
  if (first.done) refuse('The body is empty: the first line must be the state header', [{ line: 1, message: 'missing' }]);
  const header = parseLine(first.value!.text, first.value!.n, stateHeader) as StateHeader;
  const checked = await plan(header);
  const model = checked.model;
  const carriedInline = inline(header, model);
  const problems: Problem[] = [];
  let bad = 0;
  let allModel = true;
  let end: { relations: number; grants: number } | null = null;
  const seen = { relations: 0, grants: 0 };
  for (let next = await it.next(); !next.done; next = await it.next()) {
    const { n, text } = next.value;
    let problem: Problem | null = null;
    try {
      const line = parseLine(text, n, stateLine) as StateLine;
      if (end) problem = { line: n, message: `Line ${n} comes after the end line` };
      else if ('end' in line) end = line.end;
      else {
        const item = asItem(line);
        seen[item.grant ? 'grants' : 'relations']++;
        const p = itemProblem(model, item);
        if (p) problem = { line: n, ...p };
        else await spool.write(JSON.stringify(lineOf(item)));
      }
    } catch (e) {
      if (!(e instanceof AppError) || e.code !== 'VALIDATION_FAILED') throw e;
      problem = { line: n, message: e.message };
    }
    if (problem) {
      if (!isModel(problem)) allModel = false;
      if (bad++ < MAX_PROBLEMS) problems.push(problem);
    }
    if (spool.count && spool.count % PROGRESS_EVERY === 0) log.info({ lines: spool.count }, 'state import: lines validated');
  }
  await spool.finish();
  if (bad) refuse('Some lines are not valid', problems, bad, allModel);
  // An export with tuples ends with a count of them: without it (or with other counts) the file was cut short,
  // and a prune would remove what the missing part holds.
  if (header.carries?.length && (!end || end.relations !== seen.relations || end.grants !== seen.grants)) {
    refuse('The document is incomplete', [{ message: end
      ? `the end line counts ${end.relations} tuples and ${end.grants} grants; the upload has ${seen.relations} and ${seen.grants}`
      : 'the header says the export carries tuples, but the end line ({"end": {...}}) is missing: the file was cut short' }]);
  }
  const carried = {
    relations: header.relations !== undefined || (header.carries ?? []).includes('relations'),
    grants: header.grants !== undefined || (header.carries ?? []).includes('grants'),
  };
  const items = async function*() {
    yield* batches(carriedInline);
    let batch: Item[] = [];
    for await (const line of spool.read()) {
      batch.push(asItem(JSON.parse(line) as ItemLine));
      if (batch.length === BATCH) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length) yield batch;
  };
  return { header, checked, carried, items };
}
