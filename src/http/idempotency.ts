/**
 * `Idempotency-Key` on every POST (Stripe's convention). A retry with the same key, from the same
 * credential, with the same method, path and body, gets the first response again (status, body, and
 * `Idempotent-Replayed: true`) without running anything; the same key with another request is 409.
 * Duplicates arriving while the first still runs wait for it and replay its response.
 *
 * What is stored: every response the handler produced below 500, errors included (a 404 or 409 caused by
 * the request stays that answer for 24 hours). A 5xx releases the key, so a retry runs again. Requests
 * refused before the handler starts (authentication, body validation) store nothing, as with Stripe.
 * A route whose answer carries a secret shown once (`shownOnce`: a new API key, device key, signing or
 * uplink secret, setup link) never has that answer stored: secrets are kept hashed or not at all, so a
 * retry gets 409 naming the header, and whoever lost the first answer rotates what it made.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  checkIdempotencyKey,
  claimIdempotencyKey,
  completeIdempotencyKey,
  fingerprintOf,
  releaseIdempotencyKey,
} from '../calls/idempotency-store.ts';
import type { Db } from '../db/schema.ts';
import { conflict, errorBody } from '../domain/errors.ts';

const HEADER = 'Idempotency-Key';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: this POST route ignores Idempotency-Key (MCP takes idempotency_key per tool call instead). */
    idempotency?: boolean;
    /** The route's success answer carries a secret shown once: a retry is 409, the answer is not kept. */
    shownOnce?: boolean;
  }
  interface FastifyRequest {
    /** The idempotency key this request holds, to be completed with its response. */
    idempotency: { scope: string; key: string; owner: string } | null;
  }
}

/** What a retry of a request whose answer held a secret shown once gets instead of that answer. */
const SHOWN_ONCE_RETRY = {
  status: 409,
  contentType: 'application/json; charset=utf-8',
  body: JSON.stringify(
    errorBody(
      conflict(
        `This ${HEADER} was used by a request that was done: its answer held a secret shown only once, which is not kept. Find what it made (list it) and, if the first answer was lost, rotate its key or secret.`,
        HEADER,
      ),
    ),
  ),
};

export function registerIdempotency(app: FastifyInstance, deps: { db: Db }): void {
  const { db } = deps;
  app.decorateRequest('idempotency', null);

  // preHandler: after authentication (the credential is the key's scope) and body validation.
  // Callback hooks (observe.ts): a request without the header pays no promise.
  app.addHook('preHandler', (request, reply, done) => {
    const header = request.headers['idempotency-key'];
    const caller = request.caller;
    const applies = request.method === 'POST' && request.routeOptions.config.idempotency !== false;
    if (!applies || header === undefined || !caller) return done();
    claimOrReplay(request, reply, header, caller).then(() => done(), done);
  });

  /**
   * Claims the key for this request, or answers with the stored response of the request that claimed it
   * (returned as `reply.send()`'s thenable reply, so the hook's `done` waits until it is sent: read-cache.ts).
   */
  async function claimOrReplay(
    request: FastifyRequest,
    reply: FastifyReply,
    header: string | string[],
    caller: NonNullable<FastifyRequest['caller']>,
  ): Promise<unknown> {
    const key = checkIdempotencyKey(Array.isArray(header) ? undefined : header, HEADER);
    const scope = caller.kind === 'api' ? `key:${caller.keyId}` : `device:${caller.deviceId}`;
    const claim = { scope, key, fingerprint: fingerprintOf(`POST ${request.url}`, request.body ?? null) };
    const outcome = await claimIdempotencyKey(db, claim, { param: HEADER });
    if (outcome.kind === 'replay') {
      reply.code(outcome.status).header('idempotent-replayed', 'true');
      if (outcome.contentType) reply.header('content-type', outcome.contentType);
      return reply.send(outcome.body);
    }
    request.idempotency = { scope, key, owner: outcome.owner };
    return undefined;
  }

  app.addHook('onSend', (request, reply, payload, done) => {
    const held = request.idempotency;
    if (!held) return done(null, payload);
    request.idempotency = null;
    storeResponse(request, reply, payload, held).then(() => done(null, payload), done);
  });

  /** Keeps the response for retries of the same key (a failure only leaves the key pending). */
  async function storeResponse(
    request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
    held: { scope: string; key: string; owner: string },
  ): Promise<void> {
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString() : null;
    try {
      if (reply.statusCode >= 500 || body === null) await releaseIdempotencyKey(db, held, held.owner);
      else if (request.routeOptions.config.shownOnce && reply.statusCode < 300) {
        await completeIdempotencyKey(db, held, held.owner, SHOWN_ONCE_RETRY);
      } else {
        const type = reply.getHeader('content-type');
        await completeIdempotencyKey(db, held, held.owner, {
          status: reply.statusCode,
          contentType: typeof type === 'string' ? type : null,
          body,
        });
      }
    } catch (err) {
      // The response itself is fine; the key stays pending and a retry after its lease runs again.
      request.log.error({ err }, 'could not store the idempotent response');
    }
  }
}
