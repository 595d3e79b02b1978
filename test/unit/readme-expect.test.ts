// The README test's conventions: `→ text` promises output, in order; a 4xx is accepted only on the command that declares it.
import { declaredStatuses, expectedOutputs, missingOutput, unexpectedAnswers } from '../support/readme-expect.js';

describe('README block outputs (→)', () => {
  const ts = [
    'const { allowed } = await check(); // a comment without an arrow',
    'console.log(allowed, mine); // → true true',
    'console.log(objects);',
    "// → [ 'Report:r9' ]",
  ].join('\n');

  it('reads `→ text` from trailing comments and comment lines, with their lines', () => {
    expect(expectedOutputs(ts, 'ts')).toEqual([{ line: 1, text: 'true true' }, { line: 3, text: "[ 'Report:r9' ]" }]);
    const sh = 'npx authz check "User:carol#reader@Doc:1"   # a denial exits 1 → allow\ncurl -s "$C/x#frag"';
    expect(expectedOutputs(sh, 'sh')).toEqual([{ line: 0, text: 'allow' }]);
  });

  it('fails an output that differs from the promise: false false is not true true', () => {
    const expected = expectedOutputs(ts, 'ts');
    expect(missingOutput("true true\n[ 'Report:r9' ]\n", expected)).toBeNull();
    expect(missingOutput("false false\n[ 'Report:r9' ]\n", expected)).toEqual({ line: 1, text: 'true true' });
    expect(missingOutput('[]\n', expected)).toEqual({ line: 1, text: 'true true' });
  });

  it('takes the promises in order', () => {
    expect(missingOutput("[ 'Report:r9' ]\ntrue true\n", expectedOutputs(ts, 'ts'))).toEqual({ line: 3, text: "[ 'Report:r9' ]" });
  });

  it('reads … as any text and a space as any whitespace, newlines included', () => {
    const [e] = expectedOutputs('grpcurl … Can   # → { "allowed": true }', 'sh');
    expect(missingOutput('{\n  "allowed": true\n}\n', [e!])).toBeNull();
    expect(missingOutput('{\n  "allowed": false\n}\n', [e!])).toEqual(e);
    const [docs] = expectedOutputs('curl -s $C/database/Doc   # → {"documents":[{…"title":"Plan"…}],"count":1}', 'sh');
    expect(missingOutput('{"documents":[{"_id":"65","title":"Plan","createdAt":"x"}],"count":1}', [docs!])).toBeNull();
    expect(missingOutput('{"documents":[],"count":0}', [docs!])).toEqual(docs);
  });
});

describe('README curl statuses', () => {
  const code = [
    'D=$(curl -s -XPOST $C/database/Doc -d "{\\"title\\":\\"404\\"}" | jq -r ._id)',
    'curl -s -XPATCH $C/database/Doc/$D -d x   # 403: members read, owners edit',
    'curl -s -XPATCH $C/config/x \\',
    "  -d '{}'   # 404: no such module",
  ].join('\n');
  const declared = declaredStatuses(code);

  it('reads a status only from the comment of its command, continued lines included', () => {
    expect(declared).toEqual([{ start: 1, end: 1, status: 403 }, { start: 2, end: 3, status: 404 }]);
  });

  it('accepts a 4xx only on the command that declares it, and only that one', () => {
    const ok = [{ status: 201, line: 0, request: 'POST a' }, { status: 403, line: 1, request: 'PATCH b' }, { status: 404, line: 2, request: 'PATCH c' }];
    expect(unexpectedAnswers(ok, declared)).toEqual([]);
    // A 404 elsewhere in the block (here inside a body on line 1) does not excuse a 404 of line 1.
    expect(unexpectedAnswers([{ status: 404, line: 0, request: 'POST a' }, ...ok.slice(1)], declared)).toEqual(['line 1: 404 POST a']);
    // A command that declares a 4xx and gets another answer, or none, fails too.
    expect(unexpectedAnswers([ok[0]!, { status: 200, line: 1, request: 'PATCH b' }, ok[2]!], declared)).toEqual(['line 2: 200 PATCH b (declared 403)']);
    expect(unexpectedAnswers(ok.slice(0, 2), declared)).toEqual(['line 4: declares 404 but no curl of it answered']);
  });

  it('never accepts a 5xx or no answer', () => {
    expect(unexpectedAnswers([{ status: 500, line: 1, request: 'PATCH b' }, { status: 0, line: 0, request: 'POST a' }], [])).toEqual(['line 2: 500 PATCH b', 'line 1: 0 POST a']);
  });
});
