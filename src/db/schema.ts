/**
 * The database as Kysely sees it. Each area declares its tables in `tables/<area>.ts`
 * beside its migration; this interface joins them.
 */
import type { Kysely, Transaction as KyselyTransaction } from 'kysely';
import type { FoundationTables } from './tables/foundation.ts';

export interface DB extends FoundationTables {}

/** What service functions take: the database or a transaction. */
export type Db = Kysely<DB> | KyselyTransaction<DB>;
export type Trx = KyselyTransaction<DB>;
