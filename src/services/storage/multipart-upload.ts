// Reads a multipart upload as it arrives: the `file` part streams into the provider, the other parts are short fields.
import { Readable } from 'node:stream';
import busboy from 'busboy';
import { AppError } from '../../errors.js';

/** `size` is null when the body has no file part (a change of metadata only). */
export interface MultipartUpload {
  fields: Record<string, unknown>;
  size: number | null;
  filename?: string;
  mimeType?: string;
}

const MAX_FIELD_BYTES = 4096;
/** What a body may hold besides the file's bytes: the other parts, part headers, boundaries, preamble and epilogue. */
export const MULTIPART_OVERHEAD_BYTES = 256 * 1024;

/** `sink` receives the bytes of the `file` part as they come and resolves with what it stored. */
export function readMultipartUpload(body: AsyncIterable<Buffer | string>, contentType: string, maxBytes: number,
  sink: (bytes: Readable) => Promise<number>): Promise<MultipartUpload> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: { 'content-type': contentType }, limits: { files: 1, fileSize: maxBytes + 1, fields: 16, fieldSize: MAX_FIELD_BYTES, parts: 17 } });
    } catch (e) {
      reject(new AppError('BAD_REQUEST', `Not a multipart body: ${(e as Error).message}`));
      return;
    }
    // No prototype: a field named __proto__ is kept as one (and refused by the storable check), not dropped.
    const fields: Record<string, unknown> = Object.create(null);
    let file: { stored: Promise<number>; stream: Readable; filename?: string; mimeType?: string } | null = null;
    let failed: AppError | null = null;
    const input = Readable.from(body);
    // The body as a whole is bounded too: busboy skips a preamble and an epilogue of any length.
    const bodyLimit = maxBytes + MULTIPART_OVERHEAD_BYTES;
    let received = 0;
    input.on('data', (chunk: Buffer | string) => {
      received += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
      if (received > bodyLimit && !failed) {
        const e = new AppError('PAYLOAD_TOO_LARGE',
          `The upload exceeds ${bodyLimit} bytes, more than a multipart body with a file of ${maxBytes} bytes (config storage.maxFileBytes) needs`);
        (file as typeof file)?.stream.destroy(e); // the provider's write fails and leaves nothing behind
        fail(e);
      }
    });
    const fail = (e: AppError) => {
      if (failed) return;
      failed = e;
      input.unpipe(parser);
      // Reading stops here: what is left of the request is the transport's to drop, with its bound, once the answer
      // is out (the REST adapter's drain); read and dropped here, it was read whole, however long it went on.
      input.destroy();
      // A file part cut off with the body never ends: it fails, and its provider leaves nothing behind.
      if (file && !file.stream.readableEnded) file.stream.destroy(e);
      if (file) file.stored.then(() => reject(e), () => reject(e));
      else reject(e);
    };
    parser.on('file', (name, stream, info) => {
      // Also a part busboy had read when the body was refused (fail does nothing then): nothing is stored of it.
      if (failed || name !== 'file' || file) {
        stream.resume();
        fail(new AppError('VALIDATION_FAILED', `Invalid body: one file part, named file, is expected (got ${name})`, [{ path: 'body.file', message: 'unexpected part' }]));
        return;
      }
      // busboy says `limit` on reaching its limit, so it is given one byte more: the file then exceeds maxBytes.
      stream.on('limit', () => {
        const e = new AppError('PAYLOAD_TOO_LARGE', `The file exceeds ${maxBytes} bytes (config storage.maxFileBytes)`);
        stream.destroy(e); // the provider's write fails and leaves nothing behind
        fail(e);
      });
      stream.on('error', () => undefined); // the sink's pipeline reports it; this one only keeps it from counting as unhandled
      const stored = sink(stream);
      stored.catch(() => undefined); // awaited when the body ends
      file = { stored, stream, filename: info.filename || undefined, mimeType: info.mimeType || undefined };
    });
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated || info.nameTruncated) {
        fail(new AppError('VALIDATION_FAILED', `Invalid body: field ${name.slice(0, 64)} is longer than ${MAX_FIELD_BYTES} bytes`, [{ path: `body.${name.slice(0, 64)}` }]));
      }
      else if (Object.hasOwn(fields, name)) {
        fail(new AppError('VALIDATION_FAILED', `Invalid body: field ${name.slice(0, 64)} appears twice`, [{ path: `body.${name.slice(0, 64)}` }]));
      }
      else fields[name] = value;
    });
    const tooMany = () => fail(new AppError('VALIDATION_FAILED', 'Invalid body: too many parts', [{ path: 'body' }]));
    parser.on('partsLimit', tooMany);
    parser.on('filesLimit', tooMany);
    parser.on('fieldsLimit', tooMany);
    parser.on('error', (e: Error) => fail(new AppError('BAD_REQUEST', `Malformed multipart body: ${e.message}`)));
    input.on('error', (e: Error) => fail(new AppError('BAD_REQUEST', `The upload was cut short: ${e.message}`)));
    parser.on('close', () => {
      if (failed) return;
      if (!file) {
        resolve({ fields, size: null });
        return;
      }
      const { stored, filename, mimeType } = file;
      stored.then((size) => resolve({ fields, size, filename, mimeType }), (e: unknown) => reject(e));
    });
    input.pipe(parser);
  });
}
