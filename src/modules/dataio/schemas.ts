import { type Static, Type } from 'typebox';
import { DateInput, Nullable } from '../../http/schemas.ts';

export const EXPORT_FORMATS = ['csv', 'ndjson'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** What each export format is sent as. */
export const EXPORT_CONTENT_TYPES: Readonly<Record<ExportFormat, string>> = {
  csv: 'text/csv; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
};

const format = Type.Optional(
  Type.Enum(EXPORT_FORMATS, {
    type: 'string',
    description:
      'csv (a header row, then one row per record; nested objects as JSON text in one cell) or ndjson (one API object per line). Default csv.',
  }),
);

export const ExportQuery = Type.Object({ format }, { additionalProperties: false });

export const HerdBookExportQuery = Type.Object(
  {
    format,
    since: Type.Optional(DateInput('Only records at or after this time.')),
    until: Type.Optional(DateInput('Only records strictly before this time.')),
  },
  { additionalProperties: false },
);

export const ReadingsExportQuery = Type.Object(
  {
    format,
    metric: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Only this metric.' })),
    since: Type.Optional(DateInput('Only readings at or after this time.')),
    until: Type.Optional(DateInput('Only readings strictly before this time.')),
  },
  { additionalProperties: false },
);

/** The most an import body may hold: about 100,000 animals of a typical spreadsheet. */
export const IMPORT_BODY_LIMIT_BYTES = 20 * 1024 * 1024;
/** The most data rows one import takes. */
export const IMPORT_MAX_ROWS = 100_000;
/**
 * The most errors an answer lists (the rest are counted): a row may have an error per cell, and 100,000 rows
 * of them listed would be an answer of a hundred megabytes. Every row's result still says `error`.
 */
export const IMPORT_MAX_LISTED_ERRORS = 10_000;

const flag = (description: string) =>
  Type.Optional(Type.Boolean({ description: `${description} Default false.` }));

export const ImportQuery = Type.Object(
  {
    dry_run: flag('Check every row and answer what would be created or updated, storing nothing.'),
    skip_invalid: flag(
      'Import the valid rows and skip the rows with errors (without it, one bad row imports nothing).',
    ),
  },
  { additionalProperties: false },
);

export const ImportRowError = Type.Object({
  row: Type.Integer({ description: 'The line of the file the row ends on (the header is line 1).' }),
  column: Nullable(Type.String({ description: 'The column at fault, or null for the whole row.' })),
  message: Type.String(),
});

export const IMPORT_ACTIONS = ['create', 'update', 'unchanged', 'error'] as const;

export const ImportResultSchema = Type.Object({
  dry_run: Type.Boolean({ description: 'True when nothing was stored.' }),
  rows: Type.Integer({ description: 'Data rows read (blank lines not counted).' }),
  created: Type.Integer({ description: 'Animals created (or that would be, on a dry run).' }),
  updated: Type.Integer({
    description: 'Existing animals updated (or that would be), matched by eid or tag.',
  }),
  unchanged: Type.Integer({ description: 'Rows matching an animal that they would not change.' }),
  skipped: Type.Integer({ description: 'Rows with errors left out (skip_invalid=true).' }),
  error_count: Type.Integer({ description: 'Errors found in all rows (errors lists the first ones).' }),
  errors: Type.Array(ImportRowError, {
    description: `Every error of every row, in file order; at most the first ${IMPORT_MAX_LISTED_ERRORS.toLocaleString('en')} (error_count counts them all).`,
  }),
  results: Type.Array(
    Type.Object({
      row: Type.Integer(),
      action: Type.Enum(IMPORT_ACTIONS, { type: 'string' }),
      animal_id: Nullable(
        Type.String({
          description:
            'The animal created, updated or matched; null for an error, and for a create on a dry run.',
        }),
      ),
    }),
    { description: 'One entry per data row, in file order.' },
  ),
});

export type ExportQueryInput = Static<typeof ExportQuery>;
export type ReadingsExportQueryInput = Static<typeof ReadingsExportQuery>;
export type ImportRowErrorT = Static<typeof ImportRowError>;
export type ImportResult = Static<typeof ImportResultSchema>;
