// Access-list views (contract 4.5): a named, refreshable list of the objects of a type a subject may act on, paged.
import { AppError } from '../../errors.js';
import type { AccessViewRecord, AccessViewStore } from '../../stores/ports/access-views.js';
import type { Checks } from './checks.js';
import type { Revisions } from './revisions.js';

/** Objects one view may hold, and their ids' bytes: a refresh costs a list walk of this many. */
export const VIEW_MAX_OBJECTS = 100_000;
const VIEW_MAX_BYTES = 8 * 1024 * 1024;
const PAGE = 1000;

export interface ViewSpec {
  name: string;
  subject: string;
  permission: string;
  resourceType: string;
}

const summary = (v: AccessViewRecord) => ({
  name: v._id,
  subject: v.subject,
  permission: v.permission,
  resourceType: v.resourceType,
  count: v.count,
  revision: v.revision,
  createdAt: v.createdAt,
  refreshedAt: v.refreshedAt,
});

/**
 * A view is computed from the index, fully consistent at the revision it records, and kept as computed until it is
 * refreshed: custom modules page through a stable list while writes go on, and refresh when they choose.
 */
export class AccessViews {
  constructor(private readonly store: AccessViewStore, private readonly checks: Checks, private readonly revisions: Revisions) {}

  /** Computes the view's list a page at a time into a draft, and publishes it: no more than a page is held. */
  private async compute(spec: ViewSpec, createdAt: Date | null): Promise<AccessViewRecord> {
    const revision = await this.revisions.latest();
    const first = await this.checks.listObjects(spec.subject, spec.permission, spec.resourceType, 0, PAGE, { consistency: 'at_least_as_fresh', revision });
    if (first.count > VIEW_MAX_OBJECTS) {
      throw new AppError('LIST_TOO_LARGE', `${first.count} objects are more than a view holds (${VIEW_MAX_OBJECTS}); page /authorization/permissions/objects instead`);
    }
    const draft = this.store.draft(spec.name);
    try {
      let page = first.objects;
      let done = 0;
      let bytes = 0;
      while (page.length) {
        bytes += page.reduce((n, o) => n + o.length, 0);
        if (bytes > VIEW_MAX_BYTES) {
          throw new AppError('LIST_TOO_LARGE', `The objects' ids pass ${VIEW_MAX_BYTES} bytes, more than a view holds; page /authorization/permissions/objects instead`);
        }
        await draft.append(page);
        done += page.length;
        if (done >= first.count) break;
        page = (await this.checks.listObjects(spec.subject, spec.permission, spec.resourceType, done, PAGE)).objects;
      }
      const now = new Date();
      return await draft.publish({
        _id: spec.name,
        subject: spec.subject,
        permission: spec.permission,
        resourceType: spec.resourceType,
        revision,
        createdAt: createdAt ?? now,
        refreshedAt: now,
      });
    } catch (e) {
      await draft.discard().catch(() => undefined);
      throw e;
    }
  }

  /** Creates (or redefines) the view and computes it now. */
  async create(spec: ViewSpec) {
    const existing = await this.store.get(spec.name);
    const view = await this.compute(spec, existing?.createdAt ?? null);
    return { view: summary(view), created: !existing };
  }

  async refresh(name: string) {
    const view = await this.store.get(name);
    if (!view) throw new AppError('NOT_FOUND', `No access view ${name}`);
    return summary(await this.compute({ name, subject: view.subject, permission: view.permission, resourceType: view.resourceType }, view.createdAt));
  }

  /** One page of the view's objects, in id order, as of its last refresh. */
  async page(name: string, skip: number, limit: number) {
    const found = await this.store.page(name, skip, limit);
    if (!found) throw new AppError('NOT_FOUND', `No access view ${name}`);
    return { ...summary(found.view), objects: found.objects };
  }

  async list(skip: number, limit: number) {
    const page = await this.store.list(skip, limit);
    return { views: page.items.map(summary), count: page.count };
  }

  async remove(name: string) {
    if (!(await this.store.delete(name))) throw new AppError('NOT_FOUND', `No access view ${name}`);
    return { deleted: name };
  }
}
