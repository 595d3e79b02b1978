// Reads a JSON or YAML input file and finds the line of a JSON path in it, so problems point into the file.
import { readFile, stat } from 'node:fs/promises';
import { LineCounter, parseDocument, isNode, type Document } from 'yaml';
import { CliError, EXIT } from './exit.js';
import { at } from './io.js';
import { duplicateKey } from './json-keys.js';

/** A model test is a small file; anything this large is a mistake (a data dump), not a test. */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;
/** Alias expansions a YAML file may make: anchors save typing, they do not multiply a file into gigabytes. */
const MAX_ALIASES = 100;

export interface SourceFile {
  path: string;
  value: unknown;
  /** `path:line:col` of the node at a JSON path (or of its nearest existing parent). */
  locate(jsonPath: string): string;
}

const isYaml = (path: string) => /\.ya?ml$/i.test(path);

/** `$.steps[2].checks[0]` -> ['steps', 2, 'checks', 0]. */
export function pathKeys(jsonPath: string): Array<string | number> {
  const keys: Array<string | number> = [];
  const re = /\.([A-Za-z_$][\w$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g;
  for (let m = re.exec(jsonPath); m; m = re.exec(jsonPath)) {
    keys.push(m[1] ?? (m[2] !== undefined ? Number(m[2]) : JSON.parse(m[3]!) as string));
  }
  return keys;
}

/** `path` is read relative to `cwd` and reported as given. */
export async function readSource(path: string, cwd = '.'): Promise<SourceFile> {
  let text: string;
  try {
    const file = at(cwd, path);
    const info = await stat(file);
    if (!info.isFile()) throw new CliError(EXIT.input, `${path}: not a file`);
    if (info.size > MAX_FILE_BYTES) throw new CliError(EXIT.input, `${path}: ${info.size} bytes, more than the ${MAX_FILE_BYTES} a model file may have`);
    text = await readFile(file, 'utf8');
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(EXIT.input, `${path}: cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return parseSource(path, text);
}

export function parseSource(path: string, text: string): SourceFile {
  // JSON is read by JSON.parse (exactly JSON's rules); the YAML parser is only asked where a path's line is.
  let doc: { d: Document; lines: LineCounter } | undefined;
  const document = () => {
    if (!doc) {
      const lines = new LineCounter();
      // YAML's own rule: a key given twice in one mapping is an error (it would hide the first one's assertions).
      doc = { d: parseDocument(text, { lineCounter: lines }), lines };
    }
    return doc;
  };
  let value: unknown;
  if (isYaml(path)) {
    const { d, lines } = document();
    const error = d.errors[0];
    if (error) {
      const at = lines.linePos(error.pos[0]);
      throw new CliError(EXIT.input, `${path}:${at.line}:${at.col}: not valid YAML: ${error.message.split('\n')[0]}`);
    }
    // The yaml library refuses an alias bomb ("billion laughs") by throwing; that is bad input, not a crash.
    try {
      value = d.toJS({ maxAliasCount: MAX_ALIASES });
    } catch (e) {
      throw new CliError(EXIT.input, `${path}: not a usable YAML document: ${(e as Error).message} (at most ${MAX_ALIASES} alias expansions)`);
    }
  } else {
    try {
      value = JSON.parse(text);
    } catch (e) {
      const message = (e as Error).message;
      const pos = /position (\d+)/.exec(message);
      const at = pos ? document().lines.linePos(Number(pos[1])) : null;
      throw new CliError(EXIT.input, `${path}${at ? `:${at.line}:${at.col}` : ''}: not valid JSON: ${message}`);
    }
    const twice = duplicateKey(text);
    if (twice) {
      const at = document().lines.linePos(twice.offset);
      throw new CliError(EXIT.input, `${path}:${at.line}:${at.col}: the key ${JSON.stringify(twice.key)} appears twice in one object (only the last would count)`);
    }
  }
  return {
    path,
    value,
    locate(jsonPath) {
      const { d, lines } = document();
      const keys = pathKeys(jsonPath);
      for (let n = keys.length; n >= 0; n--) {
        const node = d.getIn(keys.slice(0, n), true);
        if (isNode(node) && node.range) {
          const at = lines.linePos(node.range[0]);
          return `${path}:${at.line}:${at.col}`;
        }
      }
      return path;
    },
  };
}
