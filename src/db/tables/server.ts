/** What a running server records for the other processes on the database (migration 0040_server_facts). */
export interface ServerFactsTable {
  /** One of SERVER_FACTS (db/server-facts.ts). */
  name: string;
  value: string;
  updated_at: number;
}

export interface ServerTables {
  server_facts: ServerFactsTable;
}
