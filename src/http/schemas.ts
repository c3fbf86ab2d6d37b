/** Schema pieces shared by every module: the error envelope, list envelopes, ids, times. */
import { type TSchema, Type } from 'typebox';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './pagination.ts';

export const ErrorSchema = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'Stable machine-readable code, e.g. invalid_request, not_found.' }),
      message: Type.String({ description: 'What went wrong, for a person.' }),
      param: Type.Optional(Type.String({ description: 'The offending input field, when there is one.' })),
    }),
  },
  { $id: 'Error', title: 'Error' },
);

/** Standard error responses for an authenticated route (plus 404 where it takes an id). */
export const errorResponses = {
  400: Type.Ref('Error'),
  401: Type.Ref('Error'),
  404: Type.Ref('Error'),
  409: Type.Ref('Error'),
  413: Type.Ref('Error'),
} as const;

export const DateTime = (description?: string) =>
  Type.String({ format: 'date-time', ...(description ? { description } : {}) });

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
