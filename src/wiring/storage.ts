// The storage module: the File definition, uploads streamed to a provider (local disk or S3), every access through the index.
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Checks } from '../services/authorization/checks.js';
import type { Definitions } from '../services/authorization/definitions.js';
import type { Relations } from '../services/authorization/relations.js';
import type { ClientAuth } from '../services/client-auth.js';
import type { Settings } from '../services/config/settings.js';
import { Files } from '../services/storage/files.js';
import { Providers } from '../services/storage/providers.js';
import { UrlSigner } from '../services/storage/signed-urls.js';
import type { Stores } from '../stores/ports/stores.js';
import { storageRoutes } from '../surfaces/routes/storage.js';
import type { Module } from './module.js';

export function storageModule(stores: Stores, config: Config, log: Logger, deps: {
  authz: { definitions: Definitions; relations: Relations; checks: Checks };
  settings: Settings;
  clientAuth: ClientAuth;
}) {
  const storage = () => deps.settings.get('storage');
  const files = new Files({
    records: stores.files,
    ...deps.authz,
    providers: new Providers(storage, stores.fileStorage),
    signer: new UrlSigner(config.CLIENT_JWT_SECRET),
    config: storage,
    log,
  });
  const module: Module = {
    name: 'storage',
    routes: storageRoutes(files, deps.clientAuth),
    probe: () => files.probe(),
    // A store that is down now is no reason not to start: the definition is registered again before the first upload.
    start: () => files.define().then(() => undefined, (e: Error) => log.warn({ err: e.message }, 'File definition not registered yet')),
  };
  return { module, files };
}
