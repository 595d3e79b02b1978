// Uploads whose name, folder or filename the document store cannot hold (NUL, lone surrogates, `$` keys), in JSON and
// multipart, each with its content before the bad field: the bytes are stored before the refusal, which must remove them.
import { request } from 'node:http';
import { readAnswer } from './multipart.js';

/** `path`: what the 400's message names; `code`: VALIDATION_FAILED unless the multipart parser refuses it first. */
export interface BadUpload {
  label: string;
  contentType: string;
  body: Buffer;
  path: string;
  code?: string;
}

const BOUNDARY = '----authz-unstorable';
const part = (headers: string, value: string | Buffer) => Buffer.concat([Buffer.from(`--${BOUNDARY}\r\n${headers}\r\n\r\n`), Buffer.from(value), Buffer.from('\r\n')]);
const field = (name: string, value: string) => part(`Content-Disposition: form-data; name="${name}"`, value);
const file = (disposition = 'filename="hello.txt"') => part(`Content-Disposition: form-data; name="file"; ${disposition}\r\nContent-Type: text/plain`, 'hello');
const multipart = (label: string, path: string, ...parts: Buffer[]): BadUpload => ({ label, path, contentType: `multipart/form-data; boundary=${BOUNDARY}`,
  body: Buffer.concat([...parts, Buffer.from(`--${BOUNDARY}--\r\n`)]) });
/** JSON text as written: `\u0000` and `\ud800` are escapes in the body, as a client's JSON encoder sends them. */
const json = (label: string, path: string, text: string): BadUpload => ({ label, path, contentType: 'application/json', body: Buffer.from(text) });

export const UNSTORABLE_UPLOADS: BadUpload[] = [
  json('JSON name with NUL', 'body.name', '{"data":"aGVsbG8=","name":"a\\u0000b.txt"}'),
  json('JSON folder with NUL', 'body.folder', '{"name":"ok.txt","data":"aGVsbG8=","folder":"x\\u0000y"}'),
  json('JSON name with a lone surrogate', 'body.name', '{"data":"aGVsbG8=","name":"\\ud800.txt"}'),
  json('JSON folder with a lone surrogate', 'body.folder', '{"data":"aGVsbG8=","name":"ok.txt","folder":"\\udfff"}'),
  multipart('multipart name with NUL', 'body.name', file(), field('name', 'a\u0000b.txt')),
  multipart('multipart folder with NUL', 'body.folder', file(), field('name', 'ok.txt'), field('folder', 'x\u0000y')),
  multipart('multipart $ field', 'body.$where', file(), field('$where', '1')),
  // Kept as a member (not dropped, nor made the fields' prototype) and refused.
  json('JSON __proto__ member', 'body.__proto__', '{"data":"aGVsbG8=","name":"ok.txt","__proto__":null}'),
  multipart('multipart __proto__ field', 'body.__proto__', file(), field('name', 'ok.txt'), field('__proto__', 'x')),
  multipart('multipart filename with NUL (encoded)', 'body.file.filename', file("filename*=UTF-8''a%00b.txt")),
  // The hostile corpus's case that went unanswered: the fields before the file, one of them bad, and the file public.
  multipart('multipart folder with NUL before a public file', 'body.folder', field('name', 'correct horse'), field('folder', '7!XboU9D\u0000}ik'), field('isPublic', 'true'),
    file("filename*=UTF-8''hello.txt")),
  // busboy refuses a NUL in a part's header before anything is stored.
  { ...multipart('multipart filename with NUL (raw)', 'Malformed part header', file('filename="a\u0000b.txt"')), code: 'BAD_REQUEST' },
];

/** Sends one with node:http (bytes as given) to `url`; the status and the parsed answer. */
export function sendUpload(url: string, token: string, u: BadUpload, method = 'POST'): Promise<{ status: number; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { authorization: `Bearer ${token}`, 'content-type': u.contentType, 'content-length': u.body.length } }, (res) => {
      void readAnswer(res).then(resolve, reject);
    });
    req.on('error', reject);
    req.end(u.body);
  });
}
