/**
 * Acknowledge from the notification: a push (or an email link) carries a random token bound to one alert
 * and one person, usable once, for 24 hours; only its SHA-256 is stored. Acknowledging with it checks that
 * the person still exists and that their role still allows acknowledging alerts (alerts write) on a farm of
 * their account, then acknowledges as they would in the console (the alert's `acknowledged_by` names them).
 */
import type { Db } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { parseAlertWords } from '../../domain/alert-words.ts';
import { AppError, notFound } from '../../domain/errors.ts';
import { allows, permission, ROLE_PRESETS } from '../../domain/permissions.ts';
import { hashSecret, randomToken } from '../../lib/secrets.ts';
import { HOUR_MS } from '../../lib/time.ts';
import { type Alert, acknowledgeAlert } from '../alerts/service.ts';
import { alertById, farmById, personById } from './audience.ts';
import { ackTokenByHash, insertAckToken, useAckToken } from './repository.ts';

export const ACK_TOKEN_TTL_MS = 24 * HOUR_MS;

/** A new token for this person and alert (stored as its hash). */
export async function issueAckToken(db: Db, personId: string, alertId: string, now: number): Promise<string> {
  const token = randomToken(43);
  await insertAckToken(db, {
    token_hash: hashSecret(token),
    alert_id: alertId,
    person_id: personId,
    created_at: now,
    expires_at: now + ACK_TOKEN_TTL_MS,
  });
  return token;
}

const refused = (message: string) => new AppError('forbidden', message);

/** What a token would acknowledge, without using it (the email link's page shows this). */
export async function describeAckToken(db: Db, token: string, now: number) {
  const row = await ackTokenByHash(db, hashSecret(token));
  if (!row) throw new AppError('not_found', 'This acknowledge link is not known.');
  const alert = await alertById(db, row.alert_id);
  if (!alert) throw notFound('alert', row.alert_id);
  return {
    alert_id: alert.id,
    title: alert.title,
    reason: alert.reason,
    words: parseAlertWords(alert.words),
    status: alert.status,
    usable: row.used_at === null && row.expires_at > now,
  };
}

/**
 * Uses the token and acknowledges its alert for its person. A used, expired or unknown token is 403 (401
 * would tell a service worker to sign in, which does not help); so is a person no longer allowed to.
 */
export async function acknowledgeWithToken(db: Db, token: string, now: number): Promise<Alert> {
  return inTransaction(db, async (trx) => {
    const used = await useAckToken(trx, hashSecret(token), now);
    if (!used) {
      throw refused(
        'This acknowledge token is used, expired or unknown; open the alert in the console instead.',
      );
    }
    const person = await personById(trx, used.person_id);
    const alert = await alertById(trx, used.alert_id);
    const farm = alert ? await farmById(trx, alert.farm_id) : undefined;
    if (!person || !alert || !farm || farm.account_id !== person.account_id) {
      throw refused('The person this token was made for can no longer acknowledge this alert.');
    }
    if (!allows(ROLE_PRESETS[person.role], permission('alerts', 'write'))) {
      throw refused(`Your role (${person.role}) does not allow acknowledging alerts.`);
    }
    // Acknowledged by the person the token was made for, as if they had tapped it in the console.
    return acknowledgeAlert(
      trx,
      { accountId: farm.account_id, mode: farm.mode },
      alert.id,
      {},
      now,
      person.id,
    );
  });
}
