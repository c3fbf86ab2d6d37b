import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../../db/schema.ts';
import { apiCaller, clearedSessionCookie, SESSION_COOKIE } from '../../http/auth.ts';
import { BODY_ERRORS, described, errorResponses, IdParams } from '../../http/schemas.ts';
import { changeRole, inviteFromApi, listPeople, removePerson } from './admin.ts';
import { completeSetup, describeSetupLink } from './links.ts';
import { LockedOut } from './lockout.ts';
import {
  InviteBody,
  InviteSchema,
  PasswordChangeBody,
  PeopleListSchema,
  PersonPatchBody,
  SessionPatchBody,
  SetupBody,
  SetupSchema,
  SignInBody,
  TokenParams,
} from './schemas.ts';
import {
  changePassword,
  getSession,
  type OpenedSession,
  SESSION_IDLE_MS,
  signIn,
  signOut,
  switchMode,
} from './service.ts';

interface Options {
  db: Db;
  /** The sessions' clock (Date.now unless a test injects one). */
  clock: () => number;
  /** log2 of scrypt's N for new password hashes (config.passwordCost). */
  passwordCost: number;
}

/** Secure when the request came over HTTPS (directly, or through a trusted proxy: FARMSTEAD_TRUST_PROXY). */
function isHttps(request: FastifyRequest): boolean {
  return request.protocol === 'https';
}

function setSessionCookie(request: FastifyRequest, reply: FastifyReply, opened: OpenedSession): void {
  reply.header(
    'set-cookie',
    stringifySetCookie({
      name: SESSION_COOKIE,
      value: opened.token,
      maxAge: SESSION_IDLE_MS / 1_000,
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: isHttps(request),
    }),
  );
}

/** Runs a step that may be locked out, answering its Retry-After. */
async function withRetryAfter<T>(reply: FastifyReply, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof LockedOut) reply.header('retry-after', err.retryAfter);
    throw err;
  }
}

const NoContent = (description: string) => Type.Null({ description });
const SessionRef = (description: string) => described(Type.Ref('Session'), description);
const LOCKED_OUT = {
  rate_limited: 'Too many failed sign-ins for this email or from this address; see Retry-After.',
};

type App = Parameters<FastifyPluginAsyncTypebox>[0];

/** Sign-in, the session, the password, and setup links: `any` access (every person may manage their own). */
export const sessionRoutes: FastifyPluginAsyncTypebox<Options> = async (app, options) => {
  signedInRoutes(app, options);
  setupLinkRoutes(app, options);
};

/** The session: signing in and out, what it is, its mode, and the signed-in person's password. */
// Over 80 lines by design: one declaration per route (its schema, then a one-line handler), each read alone.
function signedInRoutes(app: App, { db, clock, passwordCost }: Options): void {
  const tags = ['Sessions'];
  app.post(
    '/v1/session',
    {
      config: { auth: 'none' },
      schema: {
        operationId: 'signIn',
        tags,
        summary: 'Sign in to the console with an email and password',
        description:
          'Answers the Session and sets the `farmstead_session` cookie (HttpOnly, SameSite=Lax, 30 days idle; Secure over HTTPS). The cookie is then a credential on every /v1 route that takes an API key; writes made with it need the `X-CSRF-Token` header. Repeated failures for one email or address are slowed and then refused for a while (429).',
        body: SignInBody,
        response: {
          200: SessionRef('Signed in; the cookie is set.'),
          ...errorResponses(
            'invalid_request',
            { unauthorized: 'The email or password is not right (the same answer for both).' },
            LOCKED_OUT,
            ...BODY_ERRORS,
          ),
        },
      },
    },
    async (request, reply) => {
      const opened = await withRetryAfter(reply, () =>
        signIn(db, request.body, request.ip, clock(), passwordCost),
      );
      setSessionCookie(request, reply, opened);
      return opened.session;
    },
  );
  app.get(
    '/v1/session',
    {
      schema: {
        operationId: 'getSession',
        tags,
        summary: 'The signed-in person, their account, the mode and the CSRF token',
        description: 'Needs the session cookie (an API key is 401 here). Each use moves the idle expiry on.',
        response: {
          200: SessionRef('The session.'),
          ...errorResponses({ unauthorized: 'No valid session cookie: sign in with POST /v1/session.' }),
        },
      },
    },
    async (request) => getSession(db, apiCaller(request)),
  );
  app.patch(
    '/v1/session',
    {
      schema: {
        operationId: 'switchSessionMode',
        tags,
        summary: 'Switch the session between live and test mode',
        description:
          "Test mode shows and acts on the account's test farms (the sample farm among them), like an API test key; live mode on its live farms.",
        body: SessionPatchBody,
        response: {
          200: SessionRef('The session in its new mode.'),
          ...errorResponses(
            'invalid_request',
            { unauthorized: 'No valid session cookie: sign in with POST /v1/session.' },
            ...BODY_ERRORS,
          ),
        },
      },
    },
    async (request) => switchMode(db, apiCaller(request), request.body.mode),
  );
  app.delete(
    '/v1/session',
    {
      schema: {
        operationId: 'signOut',
        tags,
        summary: 'Sign out: end this session and clear its cookie',
        description: 'Ends the session at once in every process; the cookie is cleared.',
        response: {
          204: NoContent('Signed out.'),
          ...errorResponses({ unauthorized: 'No valid session cookie (already signed out).' }),
        },
      },
    },
    async (request, reply) => {
      await signOut(db, apiCaller(request));
      reply.header('set-cookie', clearedSessionCookie(isHttps(request)));
      return reply.status(204).send(null);
    },
  );
  app.post(
    '/v1/session/password',
    {
      schema: {
        operationId: 'changePassword',
        tags,
        summary: "Change the signed-in person's password; their other sessions end",
        description:
          'Checks the current password (failures count towards the sign-in lock-out). This session stays signed in; every other session of the person ends.',
        body: PasswordChangeBody,
        response: {
          204: NoContent('Changed; the other sessions have ended.'),
          ...errorResponses(
            {
              invalid_request:
                'The current password is not right, or the new one is shorter than 10 characters (param names which).',
            },
            { unauthorized: 'No valid session cookie: sign in with POST /v1/session.' },
            LOCKED_OUT,
            ...BODY_ERRORS,
          ),
        },
      },
    },
    async (request, reply) => {
      await withRetryAfter(reply, () =>
        changePassword(db, apiCaller(request), request.body, request.ip, clock(), passwordCost),
      );
      return reply.status(204).send(null);
    },
  );
}

/** Setup and invite links: what one is for, and using it (no key: the link is the credential). */
function setupLinkRoutes(app: App, { db, clock, passwordCost }: Options): void {
  const tags = ['Sessions'];
  app.get(
    '/v1/setup/:token',
    {
      config: { auth: 'none', secrets: ['token'] },
      schema: {
        operationId: 'getSetupLink',
        tags,
        summary: 'What a setup or invite link is for (no key needed)',
        description:
          'The email (null: the person chooses it), the role and the account of a one-time setup link. 404 when the link is unknown, used or expired.',
        params: TokenParams,
        response: {
          200: described(SetupSchema, 'The link is usable.'),
          ...errorResponses('invalid_request', {
            not_found: 'The link is unknown, already used, or expired.',
          }),
        },
      },
    },
    async (request) => describeSetupLink(db, request.params.token, clock()),
  );
  app.post(
    '/v1/setup/:token',
    {
      config: { auth: 'none', secrets: ['token'] },
      schema: {
        operationId: 'completeSetup',
        tags,
        summary: 'Use a setup or invite link: set the email and password, and sign in',
        description:
          "Creates the person (or sets a new password for one of the account's people, ending their other sessions), uses the link up and signs in: answers the Session and sets the cookie, as POST /v1/session does.",
        params: TokenParams,
        body: SetupBody,
        response: {
          200: SessionRef('The person is set up and signed in; the cookie is set.'),
          ...errorResponses(
            {
              invalid_request:
                'The password is shorter than 10 characters, or the email is missing or not the link’s (param names which).',
            },
            { not_found: 'The link is unknown, already used, or expired.' },
            {
              conflict: 'The email belongs to another account’s person, or the change would leave no owner.',
            },
            ...BODY_ERRORS,
          ),
        },
      },
    },
    async (request, reply) => {
      const opened = await completeSetup(db, request.params.token, request.body, clock(), passwordCost);
      setSessionCookie(request, reply, opened);
      return opened.session;
    },
  );
}

/** People admin: the `people` resource (keys family), so owners (and full live keys) only. */
export const peopleRoutes: FastifyPluginAsyncTypebox<Options & { publicUrl: string }> = async (
  app,
  { db, clock, publicUrl },
) => {
  const tags = ['People'];
  const notSession = {
    forbidden:
      'The caller lacks keys:write or keys:read (people are owner-only), or is a test key (people can be managed in live mode only).',
  };
  app.get(
    '/v1/people',
    {
      schema: {
        operationId: 'listPeople',
        tags,
        summary: "The account's people (who can sign in to the console) and their roles",
        description: 'Owners only (or a live key with keys:read).',
        response: {
          200: described(PeopleListSchema, 'Every person of the account, oldest first.'),
          ...errorResponses('unauthorized', notSession),
        },
      },
    },
    async (request) => listPeople(db, apiCaller(request)),
  );
  app.post(
    '/v1/people/invites',
    {
      config: { shownOnce: true },
      schema: {
        operationId: 'invitePerson',
        tags,
        summary: 'Invite a person: a one-time setup link for their email and role',
        description:
          "Hand the link to the person: it works once, for 24 hours. For one of the account's own people it sets a new password (the way back in). The link's address comes from FARMSTEAD_PUBLIC_URL.",
        body: InviteBody,
        response: {
          201: described(InviteSchema, 'The invite and its link.'),
          ...errorResponses(
            'invalid_request',
            'unauthorized',
            notSession,
            {
              conflict:
                'The email belongs to another account’s person, or the invite would demote the last owner.',
            },
            ...BODY_ERRORS,
          ),
        },
      },
    },
    async (request, reply) => {
      const invite = await inviteFromApi(db, apiCaller(request), request.body, publicUrl, clock());
      return reply.status(201).send(invite);
    },
  );
  app.patch(
    '/v1/people/:id',
    {
      schema: {
        operationId: 'updatePerson',
        tags,
        summary: "Change a person's role",
        description: 'Takes effect on their next request. The last owner cannot be demoted (409).',
        params: IdParams,
        body: PersonPatchBody,
        response: {
          200: described(Type.Ref('Person'), 'The person with the new role.'),
          ...errorResponses(
            'invalid_request',
            'unauthorized',
            notSession,
            { not_found: 'No person with this id in the account.' },
            { conflict: 'This is the account’s last owner.' },
            ...BODY_ERRORS,
          ),
        },
      },
    },
    async (request) => changeRole(db, apiCaller(request), request.params.id, request.body.role),
  );
  app.delete(
    '/v1/people/:id',
    {
      schema: {
        operationId: 'removePerson',
        tags,
        summary: 'Remove a person; their sessions end at once',
        description: 'The last owner cannot be removed (409).',
        params: IdParams,
        response: {
          204: NoContent('Removed.'),
          ...errorResponses(
            'unauthorized',
            notSession,
            { not_found: 'No person with this id in the account.' },
            { conflict: 'This is the account’s last owner.' },
          ),
        },
      },
    },
    async (request, reply) => {
      await removePerson(db, apiCaller(request), request.params.id);
      return reply.status(204).send(null);
    },
  );
};
