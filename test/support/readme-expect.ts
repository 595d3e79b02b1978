// What a README block promises, read from its comments: the output it prints (`→ text`) and the 4xx a command line expects.
//
// - `→ text` in a comment (`#` in sh, `//` in ts and js), at the end of the line that prints or on a comment line of its
//   own: the block's stdout holds `text`, after what the previous `→` matched. `…` stands for any text, and a run of
//   spaces for any run of whitespace (newlines too, so pretty-printed JSON matches its one-line form with spaces).
// - `# 403: why` (a comment opening with a status) at the end of a command line: every curl of that line answers 403.
//   A curl whose line declares nothing must answer 2xx or 3xx; no answer (000) or a 5xx always fails.

export interface Expected {
  line: number;
  text: string;
}

const COMMENT = { sh: /(?:^|\s)#\s+(.*)$/, js: /(?:^|\s)\/\/\s+(.*)$/ } as const;
const commentOf = (line: string, lang: string) => (lang === 'ts' || lang === 'js' ? COMMENT.js : COMMENT.sh).exec(line)?.[1];

/** The outputs a block promises, in order, with their lines (0-based in the block). */
export function expectedOutputs(code: string, lang: string): Expected[] {
  return code.split('\n').flatMap((l, line) => {
    const text = /→\s+(.*\S)/.exec(commentOf(l, lang) ?? '')?.[1];
    return text === undefined ? [] : [{ line, text }];
  });
}

const pattern = (text: string) =>
  new RegExp(text.split('…').map((part) =>
    part
      .replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+')
  ).join('[\\s\\S]*?'));

/** The promised outputs stdout lacks: the first one not found in order, or none. */
export function missingOutput(stdout: string, expected: Expected[]): Expected | null {
  let from = 0;
  for (const e of expected) {
    const m = pattern(e.text).exec(stdout.slice(from));
    if (!m) return e;
    from += m.index + m[0].length;
  }
  return null;
}

/** A command (its lines, 0-based; a line ending in `\` continues) and the status its comment declares. */
export interface Declared {
  start: number;
  end: number;
  status: number;
}

/** The commands of a shell block that declare the status of their curls. */
export function declaredStatuses(code: string): Declared[] {
  const lines = code.split('\n');
  const declared: Declared[] = [];
  for (let start = 0; start < lines.length;) {
    let end = start;
    while (end < lines.length - 1 && lines[end]!.endsWith('\\')) end += 1;
    const status = /^(\d{3})\b/.exec(commentOf(lines[end]!, 'sh') ?? '')?.[1];
    if (status) declared.push({ start, end, status: Number(status) });
    start = end + 1;
  }
  return declared;
}

export interface Answer {
  status: number;
  line: number;
  request: string;
}

/** The answers a block did not promise, and the declared statuses that no curl of their command answered. */
export function unexpectedAnswers(answers: Answer[], declared: Declared[]): string[] {
  const of = (line: number) => declared.find((d) => d.start <= line && line <= d.end);
  const wrong = answers.filter((a) => {
    const want = of(a.line)?.status;
    return a.status === 0 || a.status >= 500 || (want === undefined ? a.status >= 400 : a.status !== want);
  }).map((a) => `line ${a.line + 1}: ${a.status} ${a.request}${of(a.line) ? ` (declared ${of(a.line)!.status})` : ''}`);
  const unmet = declared.filter((d) => !answers.some((a) => of(a.line) === d))
    .map((d) => `line ${d.end + 1}: declares ${d.status} but no curl of it answered`);
  return [...wrong, ...unmet];
}
