// Client authentication and teams (contract 4.3, DESIGN.md section 6): thin adapters over ClientAuth and Teams.
import { z } from 'zod';
import type { ClientAuth } from '../../services/client-auth.js';
import type { Teams } from '../../services/teams.js';
import { names, revision, time } from './reply-parts.js';
import { route, type Route } from '../registry.js';

const user = z.object({ _id: z.string(), email: z.string(), createdAt: time }).meta({ id: 'User' });
const team = z.object({ _id: z.string(), name: z.string().nullable(), parentTeam: z.string().nullable() }).meta({ id: 'Team' });
const tokens = z.object({ userId: z.string(), accessToken: z.string(), refreshToken: z.string() });
const replies = {
  registered: z.object({ user }),
  tokens,
  ok: z.object({ ok: z.literal(true) }),
  me: z.object({ user }),
  teamCreated: team.extend({ createdAt: time }),
  teams: z.object({ teams: z.array(team), count: z.number().int() }),
  joined: z.object({ team, roles: names, revision }),
  invitation: z.object({ invitationToken: z.string(), teamId: z.string(), email: z.string(), expiresAt: time }),
  members: z.object({ members: z.array(z.object({ userId: z.string(), email: z.string().nullable(), roles: names })), count: z.number().int() }),
} as const;

const email = z.email().max(254);
// bcrypt reads at most 72 bytes; longer passwords would be silently truncated.
const password = z.string().min(8, 'must be at least 8 characters').refine((p) => Buffer.byteLength(p) <= 72, { message: 'must be at most 72 bytes' });
const page = { skip: z.coerce.number().int().min(0).default(0), limit: z.coerce.number().int().min(1).max(1000).default(25) };
const teamIdText = z.string().min(1).max(200).regex(/^[^#@\s:]+$/, 'not a team id');
const teamId = z.strictObject({ id: teamIdText });

const anyone = { surface: 'client' as const, group: 'authentication', auth: 'none' as const };
const signedIn = { surface: 'client' as const, group: 'authentication', auth: 'user' as const };

export function authenticationRoutes(deps: { clientAuth: ClientAuth; teams: Teams }): Route[] {
  return [...sessionRoutes(deps.clientAuth), ...teamRoutes(deps.teams)];
}

/** Register, log in, renew, log out, who am I. */
function sessionRoutes(clientAuth: ClientAuth): Route[] {
  return [
    route({
      ...anyone,
      http: { method: 'post', path: '/authentication/local/new', created: 'always', bodyLimit: '16kb' },
      output: replies.registered,
      errors: ['ALREADY_EXISTS'],
      summary: 'Register with email and password; returns the user, no tokens',
      body: z.strictObject({ email, password }),
      handle: async ({ body }) => ({ status: 201, body: await clientAuth.register(body.email, body.password) }),
    }),
    route({
      ...anyone,
      http: { method: 'post', path: '/authentication/local', bodyLimit: '16kb' },
      output: replies.tokens,
      login: true,
      summary: 'Log in: an access token and a refresh token',
      body: z.strictObject({ email: z.string().min(1).max(254), password: z.string().min(1).max(1024) }),
      handle: async ({ body }) => ({ body: await clientAuth.login(body.email, body.password) }),
    }),
    route({
      ...anyone,
      http: { method: 'post', path: '/authentication/renew', bodyLimit: '16kb' },
      output: replies.tokens,
      summary: 'Rotate a refresh token; reusing a rotated one revokes the login',
      body: z.strictObject({ refreshToken: z.string().min(1).max(200) }),
      handle: async ({ body }) => ({ body: await clientAuth.renew(body.refreshToken) }),
    }),
    route({
      ...signedIn,
      http: { method: 'post', path: '/authentication/logout' },
      output: replies.ok,
      summary: 'End the session: the access token stops working at once',
      handle: async ({ user: u }) => ({ body: await clientAuth.logout(u!) }),
    }),
    route({
      ...signedIn,
      http: { method: 'get', path: '/authentication/user' },
      output: replies.me,
      summary: 'The authenticated user',
      handle: async ({ user: u }) => ({ body: await clientAuth.user(u!) }),
    }),
  ];
}

/** Teams of the caller: create, list, join, invite, members. */
function teamRoutes(teams: Teams): Route[] {
  return [
    route({
      ...signedIn,
      http: { method: 'post', path: '/authentication/teams', created: 'always' },
      output: replies.teamCreated,
      errors: ['FORBIDDEN', 'NOT_FOUND'],
      summary: 'Create a team; the creator owns it, a parent team owns it too',
      body: z.strictObject({ name: z.string().trim().min(1).max(200), parentTeam: teamIdText.optional() }),
      handle: async ({ body, user: u }) => ({ status: 201, body: await teams.create(u!.userId, body.name, body.parentTeam) }),
    }),
    route({
      ...signedIn,
      http: { method: 'get', path: '/authentication/teams' },
      output: replies.teams,
      summary: 'The teams you can read',
      query: z.strictObject(page),
      handle: async ({ query, user: u }) => ({ body: await teams.list(u!.userId, query.skip, query.limit) }),
    }),
    route({
      ...signedIn,
      http: { method: 'post', path: '/authentication/teams/join' },
      output: replies.joined,
      errors: ['NOT_FOUND', 'FORBIDDEN'],
      summary: 'Join a team with an invitation sent to your email',
      body: z.strictObject({ invitationToken: z.string().min(1).max(200) }),
      handle: async ({ body, user: u }) => ({ body: await teams.join(u!.userId, body.invitationToken) }),
    }),
    route({
      ...signedIn,
      http: { method: 'post', path: '/authentication/teams/:id/invite', created: 'always' },
      output: replies.invitation,
      errors: ['FORBIDDEN', 'NOT_FOUND'],
      summary: 'Invite an email to a team (needs invite)',
      params: teamId,
      body: z.strictObject({ email }),
      handle: async ({ params, body, user: u }) => ({ status: 201, body: await teams.invite(u!.userId, params.id, body.email) }),
    }),
    route({
      ...signedIn,
      http: { method: 'get', path: '/authentication/teams/:id/members' },
      output: replies.members,
      errors: ['FORBIDDEN', 'NOT_FOUND'],
      summary: 'Members and their roles (needs viewMembers)',
      params: teamId,
      query: z.strictObject(page),
      handle: async ({ params, query, user: u }) => ({ body: await teams.members(u!.userId, params.id, query.skip, query.limit) }),
    }),
  ];
}
