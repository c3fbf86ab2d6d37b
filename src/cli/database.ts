/** Commands that work on the database open it from the same config as the server, and always close it. */
import { loadConfig } from '../config.ts';
import { type Database, openDatabase } from '../db/database.ts';
import type { Page, PageRequest } from '../db/pagination.ts';
import { parsePage } from '../db/pagination.ts';

export async function withDatabase<T>(
  work: (database: Database) => Promise<T>,
  options: { migrate?: boolean } = {},
): Promise<T> {
  const database = await openDatabase(loadConfig(), options);
  try {
    return await work(database);
  } finally {
    await database.close();
  }
}

/** Every record of a paged list (the CLI prints whole lists; an account's keys or farms are few). */
export async function allPages<T>(fetch: (page: PageRequest) => Promise<Page<T>>): Promise<T[]> {
  const out: T[] = [];
  let page = parsePage({ limit: 500 });
  for (;;) {
    const result = await fetch(page);
    out.push(...result.data);
    if (!result.next_before) return out;
    page = parsePage({ limit: 500, before: result.next_before });
  }
}
