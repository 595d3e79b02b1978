// Access-list views (contract 4.5): a named, refreshable list of the objects of a type a subject may act on, paged.
import { AppError } from '../../errors.js';
import type { AccessViewRecord, AccessViewStore } from '../../stores/ports/access-views.js';
import type { Checks } from './checks.js';
import type { Revisions } from './revisions.js';

/** Objects one view may hold: its list is stored whole, in one document (MongoDB holds at most 16 MB). */
export const VIEW_MAX_OBJECTS = 100_000;
const VIEW_MAX_BYTES = 8 * 1024 * 1024;
const PAGE = 1000;

export interface ViewSpec { name: string; subject: string; permission: string; resourceType: string }

type Stored = Omit<AccessViewRecord, 'objects'> & { count: number };
const summary = (v: Stored) => ({
  name: v._id, subject: v.subject, permission: v.permission, resourceType: v.resourceType, count: v.count,
  revision: v.revision, createdAt: v.createdAt, refreshedAt: v.refreshedAt,
});
const withCount = (v: AccessViewRecord): Stored => ({ ...v, count: v.objects.length });

/**
 * A view is computed from the index, fully consistent at the revision it records, and kept as computed until it is
 * refreshed: custom modules page through a stable list while writes go on, and refresh when they choose.
 */
export class AccessViews {
  constructor(private readonly store: AccessViewStore, private readonly checks: Checks, private readonly revisions: Revisions) {}

  private async compute(spec: Omit<ViewSpec, 'name'>): Promise<{ objects: string[]; revision: number }> {
    const revision = await this.revisions.latest();
    const first = await this.checks.listObjects(spec.subject, spec.permission, spec.resourceType, 0, PAGE, { consistency: 'at_least_as_fresh', revision });
    if (first.count > VIEW_MAX_OBJECTS) {
      throw new AppError('LIST_TOO_LARGE', `${first.count} objects are more than a view holds (${VIEW_MAX_OBJECTS}); page /authorization/permissions/objects instead`);
    }
    const objects = [...first.objects];
    let bytes = objects.reduce((n, o) => n + o.length, 0);
    while (objects.length < first.count) {
      const page = await this.checks.listObjects(spec.subject, spec.permission, spec.resourceType, objects.length, PAGE);
      if (page.objects.length === 0) break;
      objects.push(...page.objects);
      bytes += page.objects.reduce((n, o) => n + o.length, 0);
      if (bytes > VIEW_MAX_BYTES) {
        throw new AppError('LIST_TOO_LARGE', `The objects' ids pass ${VIEW_MAX_BYTES} bytes, more than a view holds; page /authorization/permissions/objects instead`);
      }
    }
    return { objects, revision };
  }

  /** Creates (or redefines) the view and computes it now. */
  async create(spec: ViewSpec) {
    const existing = await this.store.get(spec.name);
    const { objects, revision } = await this.compute(spec);
    const now = new Date();
    const view: AccessViewRecord = {
      _id: spec.name, subject: spec.subject, permission: spec.permission, resourceType: spec.resourceType, objects, revision,
      createdAt: existing?.createdAt ?? now, refreshedAt: now,
    };
    await this.store.put(view);
    return { view: summary(withCount(view)), created: !existing };
  }

  private async found(name: string): Promise<AccessViewRecord> {
    const view = await this.store.get(name);
    if (!view) throw new AppError('NOT_FOUND', `No access view ${name}`);
    return view;
  }

  async refresh(name: string) {
    const view = await this.found(name);
    const { objects, revision } = await this.compute(view);
    const next = { ...view, objects, revision, refreshedAt: new Date() };
    await this.store.put(next);
    return summary(withCount(next));
  }

  /** One page of the view's objects, in id order, as of its last refresh. */
  async page(name: string, skip: number, limit: number) {
    const view = await this.found(name);
    return { ...summary(withCount(view)), objects: view.objects.slice(skip, skip + limit) };
  }

  async list(skip: number, limit: number) {
    const page = await this.store.list(skip, limit);
    return {
      views: page.items.map(summary),
      count: page.count,
    };
  }

  async remove(name: string) {
    if (!(await this.store.delete(name))) throw new AppError('NOT_FOUND', `No access view ${name}`);
    return { deleted: name };
  }
}
