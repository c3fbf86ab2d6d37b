/** A claimed idempotency key: `pending` while its first request runs, then `done` with the response. */
export interface IdempotencyKeysTable {
  /** The credential: `key:<api key id>` or `device:<device id>`. */
  scope: string;
  key: string;
  /** SHA-256 of method, path and canonical body (or MCP tool and arguments). */
  fingerprint: string;
  /** Random token of the request that holds the claim; only it may complete or release the row. */
  owner: string;
  status: 'pending' | 'done';
  response_status: number | null;
  response_type: string | null;
  response_body: string | null;
  created_at: number;
  /** A pending claim older than this belongs to a crashed or stuck request and may be taken over. */
  locked_until: number;
  expires_at: number;
}

export interface IdempotencyTables {
  idempotency_keys: IdempotencyKeysTable;
}
