// `authz login` and `authz logout`: save a server URL and API token to a profile after trying them, or remove it.
import { COMMON, SERVER, int, str, type CommandSpec, type Parsed } from '../args.js';
import { connection } from '../connection.js';
import { CliError, EXIT, usage } from '../exit.js';
import type { CliIo } from '../io.js';
import type { Output } from '../output.js';
import { profileName, profilePath, saveProfile } from '../profile.js';

/** How API tokens start (src/services/admin-auth.ts; not imported: it would load bcrypt into every CLI run). */
const API_TOKEN_PREFIX = 'cdt_';
/** An API token is short; more than this on stdin is not a token. */
const MAX_TOKEN = 16 * 1024;

export const spec: CommandSpec = {
  name: 'login',
  summary: 'Try a server URL and API token, then save them to a profile (file mode 0600)',
  usage: ['login --url URL [--profile NAME]    (the token: AUTHZ_TOKEN, stdin, or typed at the prompt)'],
  description: (env) =>
    [
      'The token is read from AUTHZ_TOKEN, else from stdin (piped), else asked for without echo; --token works too',
      'but shows in the process list. It is tried against the server, then saved with the URL under the profile name',
      `(default "default") in ${profilePath(env)} (XDG_CONFIG_HOME moves it), readable by you only. It is never printed.`,
      'The URL is the admin surface (http://127.0.0.1:3030 under npm start), not the client surface (:3000).',
      'Create an API token with POST /api-tokens (masterkey header); the masterkey itself is not taken as a token.',
      '',
      'Exit: 0 saved, 2 usage error, 4 refused, 5 the token was refused, 6 the server cannot be reached.',
    ].join('\n'),
  flags: { ...COMMON, ...SERVER },
  examples: ['echo "$TOKEN" | authz login --url http://127.0.0.1:3030', 'authz login --url https://authz.example.com --profile prod'],
};

/** The token from stdin: typed without echo on a terminal, else the first line of what is piped in. */
async function readToken({ stdin, stderr }: CliIo): Promise<string> {
  if (stdin.isTTY) {
    stderr.write('API token: ');
    stdin.setRawMode!(true);
    stdin.resume();
    try {
      return await new Promise<string>((resolve, reject) => {
        let typed = '';
        stdin.on('data', (chunk: Buffer) => {
          for (const ch of chunk.toString('utf8')) {
            if (ch === '\u0003') {
              reject(new CliError(EXIT.usage, 'cancelled'));
              return;
            }
            if (ch === '\r' || ch === '\n') {
              resolve(typed);
              return;
            }
            if (ch === '\u007f' || ch === '\b') typed = typed.slice(0, -1);
            else if (typed.length < MAX_TOKEN) typed += ch;
          }
        });
      });
    } finally {
      stdin.setRawMode!(false);
      stdin.pause();
      stderr.write('\n');
    }
  }
  let text = '';
  for await (const chunk of stdin) {
    text += chunk;
    if (text.length > MAX_TOKEN) throw usage('stdin holds more than a token');
  }
  return text.split(/\r?\n/)[0]!.trim();
}

/** A refusal with what to do: the client surface's URL, or a masterkey where an API token belongs, are the usual slips. */
function withHint(e: unknown, url: string, token: string): unknown {
  if (!(e instanceof CliError)) return e;
  if (e.exit === EXIT.refused && / 404 ROUTE_NOT_FOUND/.test(e.message)) {
    return new CliError(e.exit, `${e.message}\n${url} has no admin routes: is it the client surface? Log in to the admin surface (http://127.0.0.1:3030 under npm start)`,
      e.details);
  }
  // An admin JWT (three dot-separated parts) is a token too: only other strings get the hint.
  if (e.exit === EXIT.auth && !token.startsWith(API_TOKEN_PREFIX) && token.split('.').length !== 3) {
    return new CliError(e.exit, `${e.message}\nauthz takes an API token (${API_TOKEN_PREFIX}…), not the masterkey or a password: create one with`
      + ` curl -XPOST ${url}/api-tokens -H "masterkey: $KEY" -H 'content-type: application/json' -d '{"name":"cli"}'`, e.details);
  }
  return e;
}

export async function run({ values }: Parsed, out: Output, io: CliIo): Promise<number> {
  const url = str(values, 'url') ?? io.env.AUTHZ_URL;
  if (!url) throw usage('authz login needs --url (or AUTHZ_URL)');
  const token = str(values, 'token') ?? io.env.AUTHZ_TOKEN ?? await readToken(io);
  if (!token) throw usage('no token given (AUTHZ_TOKEN, stdin or the prompt)');
  const conn = connection(url, token, int(values, 'timeout', { min: 1, max: 86_400, fallback: 30 }) * 1000, io.stderr);
  // Any admin route proves the token; the index status is small and read-only.
  await conn.json('GET', '/authorization/indexer/status').catch((e: unknown) => {
    throw withHint(e, conn.url, token);
  });
  const name = profileName(str(values, 'profile'), io.env);
  const path = profilePath(io.env);
  await saveProfile(name, { url: conn.url, token }, path);
  out.line(`Logged in to ${conn.url}; profile "${name}" saved in ${path}`);
  out.value({ url: conn.url, profile: name, path });
  return EXIT.ok;
}

export const logout = {
  spec: {
    name: 'logout',
    summary: 'Remove a saved profile (its URL and token)',
    usage: ['logout [--profile NAME]'],
    description: 'Exit: 0 removed, 1 there was no such profile, 2 usage error.',
    flags: { ...COMMON, profile: SERVER.profile! },
  } satisfies CommandSpec,
  async run({ values }: Parsed, out: Output, io: CliIo): Promise<number> {
    const name = profileName(str(values, 'profile'), io.env);
    const existed = await saveProfile(name, null, profilePath(io.env));
    out.line(existed ? `Profile "${name}" removed` : `No profile "${name}"`);
    out.value({ profile: name, removed: existed });
    return existed ? EXIT.ok : EXIT.failed;
  },
};
