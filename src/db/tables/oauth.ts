import type { AgentLevel } from '../../domain/agent-access.ts';

export interface OauthClientsTable {
  id: string;
  client_id: string;
  kind: 'dcr' | 'cimd';
  name: string;
  /** JSON array of the registered redirect URIs. */
  redirect_uris: string;
  /** JSON: the client's metadata as registered or fetched. */
  metadata: string;
  fingerprint: string | null;
  created_at: number;
  fetched_at: number;
}

export interface OauthGrantsTable {
  id: string;
  account_id: string;
  person_id: string;
  client_row_id: string;
  client_name: string;
  redirect_uri: string;
  /** The resource (RFC 8707) its tokens are bound to: this server's MCP URL. */
  resource: string;
  mode: 'live' | 'test';
  /** JSON array of farm ids; null: every farm of the mode. */
  farms: string | null;
  level: AgentLevel;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export interface OauthCodesTable {
  code_hash: string;
  grant_id: string;
  code_challenge: string;
  expires_at: number;
  used_at: number | null;
}

export interface OauthTokensTable {
  token_hash: string;
  grant_id: string;
  kind: 'access' | 'refresh';
  expires_at: number;
  used_at: number | null;
}

export interface OauthTables {
  oauth_clients: OauthClientsTable;
  oauth_grants: OauthGrantsTable;
  oauth_codes: OauthCodesTable;
  oauth_tokens: OauthTokensTable;
}
