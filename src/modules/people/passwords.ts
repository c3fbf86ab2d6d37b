/**
 * Passwords: scrypt from Node's own crypto, a random 16-byte salt per password, the parameters stored with
 * the hash (`scrypt$N$r$p$salt$hash`, base64url), so they can be raised later without breaking old hashes.
 * Compared in constant time. N=2^15, r=8, p=1 costs 32 MiB and roughly 50–100 ms per check: slow for an
 * attacker with a stolen table, fine for a person signing in (and off the event loop: libuv's pool).
 */
import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';
import { invalid } from '../../http/errors.ts';

export const PASSWORD_MIN_LENGTH = 10;
/** Long enough for any passphrase; bounds the work one request can ask of the KDF. */
export const PASSWORD_MAX_LENGTH = 1_000;

const COST = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

/** Refuses (400, naming `param`) a password too short or too long. */
export function checkPasswordRules(password: string, param: string): void {
  if ([...password].length < PASSWORD_MIN_LENGTH) {
    throw invalid(param, `The password must be at least ${PASSWORD_MIN_LENGTH} characters long.`);
  }
  if (password.length > PASSWORD_MAX_LENGTH) {
    throw invalid(param, `The password must be at most ${PASSWORD_MAX_LENGTH} characters long.`);
  }
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether `password` matches the stored hash; a malformed stored hash matches nothing. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  if (![cost.N, cost.r, cost.p].every((v) => Number.isInteger(v) && v > 0)) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), cost);
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/**
 * A well-formed hash of the same cost that no password matches (random salt and key): checking against it
 * costs what checking a real hash does, without computing one at start.
 */
const DECOY = [
  'scrypt',
  COST.N,
  COST.r,
  COST.p,
  randomBytes(16).toString('base64url'),
  randomBytes(KEY_LENGTH).toString('base64url'),
].join('$');

/**
 * Checks the password against the decoy and answers false: an unknown email then costs the same time as a
 * wrong password, so timing does not tell which emails have an account.
 */
export async function verifyAgainstDecoy(password: string): Promise<false> {
  await verifyPassword(password, DECOY);
  return false;
}
