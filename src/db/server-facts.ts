/**
 * Facts a running server records for the other processes on the same database. `public_url`: the address
 * the server serves at (FARMSTEAD_PUBLIC_URL, else its HOST and PORT), written when it starts listening, so
 * a CLI run with another environment (no PORT, or a different one) still prints links that reach it.
 */
import type { Db } from './schema.ts';

export const SERVER_FACTS = ['public_url'] as const;
export type ServerFact = (typeof SERVER_FACTS)[number];

export async function recordServerFact(db: Db, name: ServerFact, value: string, now: number): Promise<void> {
  await db
    .insertInto('server_facts')
    .values({ name, value, updated_at: now })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value, updated_at: now }))
    .execute();
}

/** The fact as the last server to start recorded it; null before any server has. */
export async function serverFact(db: Db, name: ServerFact): Promise<string | null> {
  const row = await db.selectFrom('server_facts').select('value').where('name', '=', name).executeTakeFirst();
  return row?.value ?? null;
}
