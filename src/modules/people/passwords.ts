/**
 * Passwords: scrypt from Node's own crypto, a random 16-byte salt per password, the parameters stored with
 * the hash (`scrypt$N$r$p$salt$hash`, base64url), so they can be raised later without breaking old hashes.
 * Compared in constant time. New hashes use N=2^cost (FARMSTEAD_PASSWORD_COST, default 15), r=8, p=1: at 15
 * that is 32 MiB and roughly 50–100 ms per check, slow for an attacker with a stolen table, fine for a person
 * signing in (and off the event loop: libuv's pool). A stored hash is always checked with its own parameters.
 */
import { randomBytes, type ScryptOptions, scrypt } from 'node:crypto';
import { invalid } from '../../domain/errors.ts';
import { sameSecret } from '../../lib/secrets.ts';

export const PASSWORD_MIN_LENGTH = 10;
/** Long enough for any passphrase; bounds the work one request can ask of the KDF. */
export const PASSWORD_MAX_LENGTH = 1_000;

const R = 8;
const P = 1;
const KEY_LENGTH = 32;

/** scrypt's parameters for a cost (log2 of N). */
function paramsOf(cost: number): { N: number; r: number; p: number } {
  return { N: 2 ** cost, r: R, p: P };
}

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

/** Hashes a new password at `cost` (log2 of scrypt's N: config.passwordCost). */
export async function hashPassword(password: string, cost: number): Promise<string> {
  const salt = randomBytes(16);
  const params = paramsOf(cost);
  const key = await derive(password, salt, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join(
    '$',
  );
}

/** Whether `password` matches the stored hash; a malformed stored hash matches nothing. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  if (![cost.N, cost.r, cost.p].every((v) => Number.isInteger(v) && v > 0)) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), cost);
  return sameSecret(key, expected);
}

/**
 * Well-formed hashes, one per cost, that no password matches (random salt and key): checking against one
 * costs what checking a real hash of that cost does, without computing one at start.
 */
const decoys = new Map<number, string>();

/** The decoy hash of `cost`. */
export function decoyHash(cost: number): string {
  let decoy = decoys.get(cost);
  if (!decoy) {
    const { N, r, p } = paramsOf(cost);
    const salt = randomBytes(16).toString('base64url');
    decoy = ['scrypt', N, r, p, salt, randomBytes(KEY_LENGTH).toString('base64url')].join('$');
    decoys.set(cost, decoy);
  }
  return decoy;
}

/**
 * Checks the password against the decoy of the configured cost (what new hashes cost) and answers false: an
 * unknown email then costs the same time as a wrong password, so timing does not tell which emails have an
 * account.
 */
export async function verifyAgainstDecoy(password: string, cost: number): Promise<false> {
  await verifyPassword(password, decoyHash(cost));
  return false;
}
