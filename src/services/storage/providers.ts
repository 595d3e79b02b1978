// The file storage providers as the `storage` module's config currently describes them, built once per distinct setting.
import type { FileStorage, OpenFileStorage } from '../../stores/ports/file-storage.js';
import type { StorageConfig } from '../config/storage-config.js';

export class Providers {
  private readonly built = new Map<string, FileStorage>();

  /** `open` builds a provider (the composition picks the adapters); this keeps one per distinct setting. */
  constructor(private readonly config: () => StorageConfig, private readonly open: OpenFileStorage) {}

  /** Where new uploads go. */
  current(): FileStorage {
    return this.named(this.config().provider);
  }

  /** The provider a file was written to (read with the current settings of that provider). */
  named(name: string): FileStorage {
    const c = this.config();
    const key = name === 's3' ? `s3 ${JSON.stringify(c.s3)}` : `local ${c.dir}`;
    let p = this.built.get(key);
    if (!p) {
      p = this.open(name, c);
      this.built.set(key, p);
    }
    return p;
  }
}
