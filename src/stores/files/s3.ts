// File bytes in an S3-compatible bucket: uploads stream in parts (bounded memory), reads stream back, ranges included.
import { DeleteObjectCommand, GetObjectCommand, HeadBucketCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Transform, type Readable } from 'node:stream';
import { FileMissing, type FileStorage, type FileStorageSettings } from '../ports/file-storage.js';

export type S3Options = FileStorageSettings['s3'];

/** Parts of 5 MB (S3's smallest), two in flight: an upload holds about 10 MB whatever the file's size. */
const PART_BYTES = 5 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;

export function s3FileStorage(o: S3Options): FileStorage {
  const client = new S3Client({
    region: o.region,
    endpoint: o.endpoint,
    forcePathStyle: o.forcePathStyle,
    // Checksums only where S3 requires them: S3-compatible servers do not all accept the newer trailing checksums.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const missing = (e: unknown) => e instanceof S3ServiceException && (e.name === 'NoSuchKey' || e.$metadata.httpStatusCode === 404);
  return {
    name: 's3',
    async put(key, body) {
      let size = 0;
      const counted = body.pipe(new Transform({ transform(chunk: Buffer, _e, done) {
        size += chunk.length;
        done(null, chunk);
      } }));
      body.on('error', (e) => counted.destroy(e));
      const upload = new Upload({ client, params: { Bucket: o.bucket, Key: key, Body: counted }, partSize: PART_BYTES, queueSize: PARTS_IN_FLIGHT, leavePartsOnError: false });
      await upload.done();
      return size;
    },
    async get(key, range) {
      try {
        const r = await client.send(new GetObjectCommand({ Bucket: o.bucket, Key: key, Range: range ? `bytes=${range.start}-${range.end}` : undefined }));
        return r.Body as Readable;
      } catch (e) {
        if (missing(e)) throw new FileMissing(key);
        throw e;
      }
    },
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket: o.bucket, Key: key }));
    },
    async probe() {
      await client.send(new HeadBucketCommand({ Bucket: o.bucket }));
    },
  };
}
