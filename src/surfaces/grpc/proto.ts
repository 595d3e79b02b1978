// The gRPC service definition, loaded from proto/ (kept in the repository) the same way by the server and the client.
import { join } from 'node:path';
import { loadSync, type PackageDefinition } from '@grpc/proto-loader';
import { ROOT } from '../../root.js';

export const PROTO_FILE = join(ROOT, 'proto', 'authzgraph', 'v1', 'authzgraph.proto');
export const PACKAGE = 'authzgraph.v1';
export const SERVICE = `${PACKAGE}.AuthzGraph`;

/** Fields in camelCase, enums by name, int64 as numbers (revisions and counts stay far below 2^53), defaults filled in. */
export const LOAD_OPTIONS = { keepCase: false, longs: Number, enums: String, defaults: true, oneofs: true } as const;

export const loadDefinition = (): PackageDefinition => loadSync(PROTO_FILE, LOAD_OPTIONS);
