// Contract of ConfigStore: each module's overrides stored whole, read one by one or all together.
import type { ConfigStore } from '../../src/stores/ports/config.js';
import { withStore, type Make } from './harness.js';

export function configContract(make: Make<ConfigStore>) {
  const t = withStore(make);
  describe('ConfigStore', () => {
    it('answers null and an empty map before anything is put', t(async ({ store }) => {
      expect(await store.get('core')).toBeNull();
      expect(await store.all()).toEqual({});
    }));

    it('puts a module whole, replacing what it held', t(async ({ store }) => {
      await store.put('router', { rateLimits: { enabled: true, routes: { 'POST /x': { windowMs: 1000, max: 2 } } } });
      await store.put('core', { transports: { graphql: false } });
      await store.put('router', { rateLimits: { enabled: false } });
      expect(await store.get('router')).toEqual({ rateLimits: { enabled: false } });
      expect(await store.all()).toEqual({ router: { rateLimits: { enabled: false } }, core: { transports: { graphql: false } } });
      await store.put('core', {});
      expect(await store.get('core')).toEqual({});
    }));

    it('gives out copies: changing a value given or returned changes nothing stored', t(async ({ store }) => {
      const value = { transports: { graphql: false } };
      await store.put('core', value);
      value.transports.graphql = true;
      ((await store.get('core'))!.transports as Record<string, boolean>).graphql = true;
      ((await store.all()).core!.transports as Record<string, boolean>).mcp = true;
      expect(await store.get('core')).toEqual({ transports: { graphql: false } });
    }));
  });
}
