// Picks the file storage adapter a provider name stands for: the one place that knows local disk and S3 by name.
import type { OpenFileStorage } from '../ports/file-storage.js';
import { localFileStorage } from './local.js';
import { s3FileStorage } from './s3.js';

export const openFileStorage: OpenFileStorage = (name, settings) => (name === 's3' ? s3FileStorage(settings.s3) : localFileStorage(settings.dir));
