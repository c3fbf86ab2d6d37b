/**
 * The database as Kysely sees it. Each area declares its tables in `tables/<area>.ts`
 * beside its migration; this interface joins them.
 */
import type { Kysely, Transaction as KyselyTransaction } from 'kysely';
import type { AlertTables } from './tables/alerts.ts';
import type { DevicesTables } from './tables/devices.ts';
import type { FoundationTables } from './tables/foundation.ts';
import type { HerdBookTables } from './tables/herd-book.ts';
import type { IdempotencyTables } from './tables/idempotency.ts';
import type { IntegrationTables } from './tables/integrations.ts';
import type { NotificationTables } from './tables/notifications.ts';
import type { OauthTables } from './tables/oauth.ts';
import type { PeopleTables } from './tables/people.ts';
import type { RecordsTables } from './tables/records.ts';
import type { RuleTables } from './tables/rules.ts';
import type { ServerTables } from './tables/server.ts';
import type { WebhookTables } from './tables/webhooks.ts';
import type { WeightTables } from './tables/weights.ts';

export interface DB
  extends FoundationTables,
    RecordsTables,
    AlertTables,
    DevicesTables,
    WebhookTables,
    IdempotencyTables,
    RuleTables,
    PeopleTables,
    IntegrationTables,
    NotificationTables,
    OauthTables,
    ServerTables,
    HerdBookTables,
    WeightTables {}

/** What service functions take: the database or a transaction. */
export type Db = Kysely<DB> | KyselyTransaction<DB>;
export type Trx = KyselyTransaction<DB>;
