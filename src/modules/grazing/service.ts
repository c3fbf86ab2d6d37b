/**
 * Grazing (docs/grazing.md): a paddock's grazing history, the stays its moves left (modules/stays writes
 * them). Where each device stands, and a house's crossings, is placement.ts.
 */
import type { Page, PageRequest } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import type { Scope } from '../farms/access.ts';
import { loadScoped } from '../records/scoped.ts';
import { stayPage } from './repository.ts';
import type { GrazingStay } from './schemas.ts';

/** A paddock's grazing history (who, from when to when), newest first. */
export async function grazingHistory(
  db: Db,
  scope: Scope,
  paddockId: string,
  page: PageRequest,
): Promise<Page<GrazingStay>> {
  const paddock = await loadScoped(db, scope, 'paddock', paddockId);
  return stayPage(db, paddock.id, page);
}
