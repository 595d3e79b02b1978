// The API usage guide served to agents (service://docs/guide): how to authenticate and call, then every route, from the registry.
import { label, type Route } from '../registry.js';

export function usageGuide(routes: readonly Route[]): string {
  const section = (surface: 'admin' | 'client') =>
    routes.filter((r) => r.surface === surface)
      .map((r) => `- \`${label(r)}\`: ${r.summary}${surface === 'admin' && r.mcp !== false ? ` (tool \`${r.id}\`)` : ''}`)
      .join('\n');
  return `# authz-graph API guide

Two HTTP surfaces. The admin surface (default :3030) is for operators and agents: send \`masterkey: <key>\`,
or \`Authorization: Bearer <admin JWT from POST /login>\`, or \`Authorization: Bearer cdt_...\` (API token).
The client surface (default :3000) is for applications: \`Authorization: Bearer <access token>\` from
\`POST /authentication/local\`; the subject of every client call is the caller.

Tuples are \`Type:id#relation@Type:id\` (subject#relation@resource). Define types with
\`post_authorization_resources\` (name, relations, permissions), write tuples with \`post_authorization_relations\`
or, for one subject and relation over many resources, \`post_authorization_relations_many\`, or, for up to 1,000
creates and deletes of any tuples at one revision, \`post_authorization_relations_write\` (\`updates: [{operation, subject,
relation, resource}]\`), then ask
\`get_authorization_permissions_can\` (subject, permission, resource). Every write answers with a \`revision\`;
a read with \`consistency=at_least_as_fresh&revision=N\` sees it.

Errors are \`{status, code, message, details}\` with the codes of the catalog (VALIDATION_FAILED, NOT_FOUND,
UNKNOWN_TYPE, RELATION_NOT_DEFINED, ...). 503 STORE_UNAVAILABLE and INDEX_BEHIND are safe to retry.

Tools take flat arguments: path parameters, query and body fields side by side. Load more tools with
\`/mcp?modules=core,authorization,database\`; \`list_modules\` lists them.

## Admin routes

${section('admin')}

## Client routes

${section('client')}
`;
}
