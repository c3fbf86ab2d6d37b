/** The surfaces usage is counted under, per account and day (GET /v1/usage answers each). */
export const SURFACES = ['api', 'ingest', 'mcp'] as const;

export type Surface = (typeof SURFACES)[number];
