// The storage module's types: `File` (as a schema with authorization has it) and `StoragePublic`, whose one object
// `StoragePublic:anyone` makes a file public when it is the file's reader: its `read` admits anyone (`*`), and a
// file's `read` takes `reader->read`, so the index marks the file readable by every subject, signed in or not.
import { schemaDefinition, type Definition } from '../../engine/model.js';

export const FILE_TYPE = 'File';
export const PUBLIC_TYPE = 'StoragePublic';
/** The subject of a public file's reader tuple: `StoragePublic:anyone#reader@File:<id>`. */
export const ANYONE = `${PUBLIC_TYPE}:anyone`;
/**
 * The subject asked about for a caller without a token. No tuple names it, so it holds no key: it may read exactly what
 * is public. (Not `ANYONE`, which holds the reader key of every public file whether or not its type is defined.)
 */
export const ANONYMOUS = 'Anonymous:caller';

export const fileDefinition = (): Definition => schemaDefinition(FILE_TYPE);
export const publicDefinition = (): Definition => ({ name: PUBLIC_TYPE, relations: {}, permissions: { read: ['*'] } });
