/** Schema pieces shared by every module: the error envelope and error responses, list envelopes, ids, times. */
import type { SwaggerTransform } from '@fastify/swagger';
import { type TSchema, Type } from 'typebox';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../db/pagination.ts';
import { ERROR_STATUS, type ErrorCode } from '../domain/errors.ts';

export const ErrorSchema = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'Stable machine-readable code, e.g. invalid_request, not_found.' }),
      message: Type.String({ description: 'What went wrong, for a person.' }),
      param: Type.Optional(Type.String({ description: 'The offending input field, when there is one.' })),
    }),
  },
  {
    $id: 'Error',
    title: 'Error',
    description:
      'Every failure: a stable code, a message for a person and, when one input is at fault, its name.',
    examples: [
      {
        error: {
          code: 'invalid_request',
          message: 'limit must be a whole number from 1 to 500.',
          param: 'limit',
        },
      },
    ],
  },
);

/** What each error code means to a client; an operation may say more precisely when it happens. */
export const ERROR_MEANINGS: Readonly<Record<ErrorCode, string>> = {
  invalid_request:
    'The request is malformed: bad JSON, a wrong type, an unknown field, a value out of range, or the id of a record that is not on this farm; `param` names it.',
  unauthorized:
    'Missing, malformed, unknown or revoked key, or the wrong kind of key (API key versus device key).',
  forbidden: 'Refused for who or where the request comes from.',
  not_found: 'No such record, or not visible to this key (another account or the other mode).',
  method_not_allowed: 'This path does not take this method; the Allow header lists those it does.',
  request_timeout: 'The request did not arrive in time.',
  conflict: 'The request contradicts the current state.',
  withdrawal_active:
    'An animal inside its meat withdrawal would leave (sale, slaughter, status sold or slaughtered); the message names the medicine, the batch and the date it ends. Send override_reason to record it anyway.',
  payload_too_large: 'The body is larger than the service accepts.',
  uri_too_long: 'A path segment is longer than 100 characters.',
  unsupported_media_type: 'The body is not application/json.',
  rate_limited: 'Too many requests; wait and retry.',
  header_too_large: 'The request headers (with the URL) are too large.',
  internal_error: 'A fault of the service; logged with the request id.',
  unavailable: 'The service is shutting down or overloaded; retry shortly.',
};

/**
 * The error responses of one operation, for its `response` schema: each code's status, the Error
 * object, and what the code means (a code given in an object carries its own, operation-specific meaning).
 * Deriving them from the code map keeps statuses and codes from drifting apart.
 *
 *   response: { 200: AnimalRef, ...errorResponses('unauthorized', { not_found: 'No animal with this id.' }) }
 */
export function errorResponses(
  ...entries: Array<ErrorCode | Partial<Record<ErrorCode, string>>>
): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  const add = (code: ErrorCode, meaning: string) => {
    const status = ERROR_STATUS[code];
    const prior = out[status] as { description?: string } | undefined;
    // Two codes on one status (none today) would share the response; keep both meanings.
    const description = prior ? `${prior.description} Or ${code}: ${meaning}` : `${code}: ${meaning}`;
    out[status] = described(Type.Ref('Error'), description);
  };
  for (const entry of entries) {
    if (typeof entry === 'string') add(entry, ERROR_MEANINGS[entry]);
    else for (const [code, meaning] of Object.entries(entry)) add(code as ErrorCode, meaning as string);
  }
  return out;
}

/**
 * Marks a body schema (every member optional) as one a caller may leave out altogether: the OpenAPI document
 * then says `requestBody.required: false` (@fastify/swagger marks every body required; an absent body is
 * validated as `{}`, http/validation.ts). For actions whose everyday call has no body, such as marking a
 * task done.
 */
export const OPTIONAL_BODY = { 'x-optional-body': true } as const;

/** The errors of a JSON body, beyond its validation (400): too large (413), not JSON (415). */
export const BODY_ERRORS = ['payload_too_large', 'unsupported_media_type'] as const;

/**
 * A response schema with the description the OpenAPI document shows for the response. @fastify/swagger
 * reads it from `x-response-description`, except on a `$ref`, which it resolves first: there only a
 * sibling `description` survives.
 */
export function described<T extends TSchema>(schema: T, description: string): T {
  const key = '$ref' in schema ? 'description' : 'x-response-description';
  return { ...schema, [key]: description };
}

export const DateTime = (description?: string) =>
  Type.String({ format: 'date-time', ...(description ? { description } : {}) });

/** What `parseIso` (src/lib/time.ts) takes, for every date or time a client sends. */
export const ISO_INPUT_NOTE =
  'ISO 8601: a date (2026-05-01, midnight UTC unless the field says otherwise) or a date-time (2026-05-01T06:00:00Z, 2026-05-01T08:00:00+02:00; without an offset it is UTC; a space may replace the T, seconds and fraction are optional). Stored and shown in UTC with milliseconds.';

/** When a record happened, given as a date alone (records/inputs.ts `parseRecordAt`). */
export const FARM_DAY_NOTE = 'A date alone (2026-05-01) is the start of that day in the farm’s time zone.';

/** A date or date-time a client sends: `format: date-time`, with what the server really accepts described. */
export const DateInput = (description?: string) =>
  Type.String({
    format: 'date-time',
    description: description ? `${description} ${ISO_INPUT_NOTE}` : ISO_INPUT_NOTE,
  });

/** A name or word a person types: not empty, not only spaces (`"  "` is a 400 "must not be blank"). */
export const NON_BLANK = '\\S';
export const TypedText = (maxLength: number, description?: string) =>
  Type.String({ minLength: 1, maxLength, pattern: NON_BLANK, ...(description ? { description } : {}) });

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const IdParams = Type.Object({ id: Type.String({ minLength: 1 }) }, { additionalProperties: false });
export const FarmParams = Type.Object(
  { farm: Type.String({ minLength: 1 }) },
  { additionalProperties: false },
);

/** `limit` and `before` on every list. */
export const PageQuery = {
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE_SIZE,
      description: `Page size, 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE}).`,
    }),
  ),
  before: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'Page backwards: an ISO 8601 time (records strictly older), or the `next_before` cursor of the previous page.',
    }),
  ),
};

export function ListOf<T extends TSchema>(item: T) {
  return Type.Object({
    data: Type.Array(item),
    has_more: Type.Boolean({ description: 'True when older records remain; pass next_before as before.' }),
    next_before: Nullable(Type.String({ description: 'Cursor for the next (older) page, or null.' })),
  });
}

export const DeletedSchema = Type.Object({ id: Type.String(), deleted: Type.Boolean() });

/**
 * Route `config` that shows `body` in the OpenAPI document in place of the schema the route validates
 * with: for a body the document can describe more precisely than Ajv should check it.
 */
export function documentBodyAs(body: TSchema): { swaggerTransform: SwaggerTransform } {
  return { swaggerTransform: ({ schema, url }) => ({ schema: { ...schema, body }, url }) };
}
