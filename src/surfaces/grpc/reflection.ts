// What server reflection describes: our service and the health service, in descriptors protoc would write (grpcurl checks them).
import { dirname, join } from 'node:path';
import { loadSync, type PackageDefinition } from '@grpc/proto-loader';
import { protoPath as HEALTH_PROTO } from 'grpc-health-check';
import descriptor from 'protobufjs/ext/descriptor/index.js';
import { ROOT } from '../../root.js';

const { FileDescriptorProto } = descriptor; // CommonJS: its exports are not named to ESM

interface Field {
  name: string;
  typeName?: string;
}
interface Message {
  name: string;
  field?: Field[];
  nestedType?: Message[];
  options?: { mapEntry?: boolean };
}
interface File {
  package?: string;
  messageType?: Message[];
}

/** protoc's name for a map field's entry message: `relations` → `RelationsEntry`, `by_name` → `ByNameEntry`. */
export const mapEntryName = (field: string) => field.replace(/(^|_)([a-z0-9])/g, (_, _sep: string, c: string) => c.toUpperCase()).replace(/_/g, '') + 'Entry';

/**
 * protobufjs names a map's entry message after the field alone (`Relations`), and Go's descriptor checks
 * (grpcurl, protoreflect) refuse that as "an invalid map": the entry and its field's type name are renamed here.
 */
function fixMapEntries(message: Message, scope: string): void {
  const full = `${scope}.${message.name}`;
  for (const entry of message.nestedType ?? []) {
    if (entry.options?.mapEntry) {
      const field = (message.field ?? []).find((f) => f.typeName === entry.name || f.typeName === `${full}.${entry.name}`);
      if (field) {
        entry.name = mapEntryName(field.name);
        field.typeName = `${full}.${entry.name}`;
      }
    }
    fixMapEntries(entry, full);
  }
}

function fixFile(bytes: Buffer, fixed: Map<Buffer, Buffer>): Buffer {
  const known = fixed.get(bytes);
  if (known) return known;
  const file = FileDescriptorProto.toObject(FileDescriptorProto.decode(bytes)) as File;
  for (const message of file.messageType ?? []) fixMapEntries(message, file.package ? `.${file.package}` : '');
  const out = Buffer.from(FileDescriptorProto.encode(FileDescriptorProto.fromObject(file)).finish());
  fixed.set(bytes, out);
  return out;
}

/** The definitions reflection serves: field names as the .proto writes them (what grpcurl's JSON takes), map entries fixed. */
export function reflectionDefinition(): PackageDefinition {
  // Relative names, so the files are named as their imports would name them (not by a path on this machine).
  const healthDir = dirname(dirname(dirname(HEALTH_PROTO)));
  const definition = loadSync(['authzgraph/v1/authzgraph.proto', 'health/v1/health.proto'], { keepCase: true, includeDirs: [join(ROOT, 'proto'), healthDir] });
  const fixed = new Map<Buffer, Buffer>();
  for (const entry of Object.values(definition)) {
    if ('fileDescriptorProtos' in entry && Array.isArray(entry.fileDescriptorProtos)) {
      entry.fileDescriptorProtos = entry.fileDescriptorProtos.map((b: Buffer) => fixFile(b, fixed));
    }
  }
  // The reflection service reads only the entries' file descriptors, and decodes every entry's: proto-loader gives each
  // of the ~200 types a copy of all files, so one entry carrying each file once answers the same at a fraction of the
  // start (half a second of CPU at each start of the service, before).
  const [name, first] = Object.entries(definition)[0]!;
  return { [name]: { ...first, fileDescriptorProtos: [...new Set(fixed.values())] } } as PackageDefinition;
}
