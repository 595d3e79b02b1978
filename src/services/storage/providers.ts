// The file storage providers as the config module `storage` currently describes them, built once per distinct setting.
import type { FileStorage } from '../../stores/ports/file-storage.js';
import { localFileStorage } from '../../stores/files/local.js';
import { s3FileStorage } from '../../stores/files/s3.js';
import type { StorageConfig } from '../config/storage-config.js';

export class Providers {
  private readonly built = new Map<string, FileStorage>();

  constructor(private readonly config: () => StorageConfig) {}

  /** Where new uploads go. */
  current(): FileStorage { return this.named(this.config().provider); }

  /** The provider a file was written to (read with the current settings of that provider). */
  named(name: string): FileStorage {
    const c = this.config();
    const key = name === 's3' ? `s3 ${JSON.stringify(c.s3)}` : `local ${c.dir}`;
    let p = this.built.get(key);
    if (!p) {
      p = name === 's3' ? s3FileStorage(c.s3) : localFileStorage(c.dir);
      this.built.set(key, p);
    }
    return p;
  }
}
