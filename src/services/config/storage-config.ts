// The `storage` module's config: which provider holds file bytes, where, how large a file may be and how long signed URLs live.
import { z } from 'zod';

export const storageConfig = z.strictObject({
  /** local: a directory on this machine; s3: an S3-compatible bucket (credentials from the AWS environment variables). */
  provider: z.enum(['local', 's3']).default('local'),
  /** The local provider's directory (relative to the working directory). */
  dir: z.string().min(1).max(1000).default('.data/storage'),
  s3: z.strictObject({
    bucket: z.string().min(3).max(63).default('authz-files'),
    /** An S3-compatible server's URL; AWS itself when absent. */
    endpoint: z.url().optional(),
    region: z.string().min(1).max(64).default('us-east-1'),
    /** Path-style addressing (bucket in the path), which most S3-compatible servers need. */
    forcePathStyle: z.boolean().default(true),
  }).prefault({}),
  /** The largest file an upload may carry, in bytes (larger ones are refused with 413 while they stream). */
  maxFileBytes: z.number().int().min(1).max(50 * 1024 ** 3).default(100 * 1024 ** 2),
  /** Lifetime of the signed URLs GET /storage/getFileUrl hands out. */
  urlTtlSeconds: z.number().int().min(1).max(7 * 86_400).default(3600),
  /** The origin signed and public URLs start with (`https://files.example.com`); the request's Host when absent. */
  publicUrl: z.url().optional(),
});

export type StorageConfig = z.infer<typeof storageConfig>;
