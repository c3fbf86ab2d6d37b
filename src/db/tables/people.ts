import type { Generated } from 'kysely';
import type { LanguageName, UnitSystem } from '../../domain/display-units.ts';
import type { RoleName } from '../../domain/permissions.ts';

export interface PeopleTable {
  id: string;
  account_id: string;
  /** Lower-cased. */
  email: string;
  name: string | null;
  role: RoleName;
  /** `scrypt$N$r$p$salt$hash` (modules/people/passwords.ts). */
  password_hash: string;
  created_at: number;
  last_sign_in_at: number | null;
  /** How the console and notifications show quantities (migration 0043); storage stays in catalog units. */
  units: Generated<UnitSystem>;
  /** The language the console and notifications speak to the person (migration 0043). */
  language: Generated<LanguageName>;
}

export interface SessionsTable {
  id: string;
  /** SHA-256 of the cookie's token; the token itself is never stored. */
  token_hash: string;
  person_id: string;
  account_id: string;
  mode: 'live' | 'test';
  created_at: number;
  last_seen_at: number;
}

export interface SetupLinksTable {
  id: string;
  token_hash: string;
  account_id: string;
  /** Null: the person chooses their email (the first owner's link). */
  email: string | null;
  role: RoleName;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface SignInFailuresTable {
  bucket: string;
  count: number;
  first_at: number;
  last_at: number;
}

export interface PeopleTables {
  people: PeopleTable;
  sessions: SessionsTable;
  setup_links: SetupLinksTable;
  sign_in_failures: SignInFailuresTable;
}
