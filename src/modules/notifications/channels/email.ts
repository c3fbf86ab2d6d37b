/**
 * Email through the operator's SMTP server (FARMSTEAD_SMTP_URL) with nodemailer: plain text, a link to
 * the alert. No SMTP configured: email is not offered at all. The adapter (emailChannel) reads the person's
 * address; the sending itself touches no database. nodemailer is loaded with the first email sent.
 */
import type { Transporter } from 'nodemailer';
import { personById } from '../audience.ts';
import { ackPageUrl, DEFAULT_READER, emailText, type Reader, say } from '../content.ts';
import { type ChannelAdapter, isUrgentAlert } from './types.ts';

export interface EmailResult {
  accepted: boolean;
  answer: string;
  /** A permanent refusal (5xx): retrying will not help. */
  permanent: boolean;
}

const transports = new Map<string, Transporter>();

async function transportFor(smtpUrl: string, timeoutMs: number): Promise<Transporter> {
  const key = `${timeoutMs} ${smtpUrl}`;
  let transport = transports.get(key);
  if (!transport) {
    const { default: nodemailer } = await import('nodemailer');
    transport = transports.get(key);
    if (transport) return transport;
    // nodemailer reads the server, port, TLS and credentials from the URL; the deadlines are ours.
    transport = nodemailer.createTransport({
      url: smtpUrl,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs * 2,
    });
    transports.set(key, transport);
  }
  return transport;
}

const EMAIL_UNAVAILABLE = say(DEFAULT_READER, 'email_unavailable');

/** Why email is not offered, or null when it is, in the reader's language (the Account page shows it). */
export function emailUnavailableReason(
  smtpUrl: string | null,
  reader: Reader = DEFAULT_READER,
): string | null {
  return smtpUrl ? null : say(reader, 'email_unavailable');
}

/** Sends one message. Never throws. */
export async function sendEmail(
  smtpUrl: string,
  message: { from: string; to: string; subject: string; text: string; urgent: boolean; timeoutMs: number },
): Promise<EmailResult> {
  try {
    const transport = await transportFor(smtpUrl, message.timeoutMs);
    const info = await transport.sendMail({
      from: message.from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      ...(message.urgent ? { priority: 'high' as const } : {}),
    });
    const accepted = (info.accepted ?? []).length > 0;
    return { accepted, answer: String(info.response ?? 'accepted'), permanent: false };
  } catch (err) {
    const e = err as { responseCode?: number; response?: string; message?: string; code?: string };
    const permanent = typeof e.responseCode === 'number' && e.responseCode >= 500;
    return {
      accepted: false,
      answer: e.response ?? (e.code ? `${e.message} (${e.code})` : String(e.message ?? err)),
      permanent,
    };
  }
}

/** The email of a notice: its title as the subject, plain text with the alert's and the acknowledge links. */
export interface EmailMessage {
  subject: string;
  text: string;
  urgent: boolean;
}

/**
 * Email to the person's sign-in address. Accepted on the server's 250; a 5xx is a permanent refusal (final),
 * anything else (no connection, a 4xx) is retried.
 */
export const emailChannel: ChannelAdapter<EmailMessage> = {
  defaults: (role) => (role === 'owner' ? ['urgent'] : []),
  unavailable: (server) => (server.email ? null : EMAIL_UNAVAILABLE),
  // Everyone has an address: their sign-in email.
  reachable: async (_db, personIds) => new Set(personIds),
  unreachable: 'Your account has no email address.',

  render: ({ row, farmName, ackToken, publicUrl, reader }) => ({
    subject: row.title,
    text:
      row.kind === 'brief'
        ? `${row.body}\n\n${say(reader, 'email_open_brief', { url: row.url })}\n`
        : emailText(
            {
              title: row.title,
              body: row.body,
              url: row.url,
              ackUrl: ackToken ? ackPageUrl(publicUrl, ackToken) : null,
              farmName: farmName ?? 'Farmstead',
            },
            reader,
          ),
    urgent: isUrgentAlert(row),
  }),

  async send(db, row, message, config) {
    if (!config.smtpUrl)
      return { accepted: false, final: true, skipped: true, answer: 'not sent: email is not set up' };
    const person = await personById(db, row.person_id);
    if (!person)
      return { accepted: false, final: true, skipped: true, answer: 'not sent: the person was removed' };
    const result = await sendEmail(config.smtpUrl, {
      from: config.emailFrom,
      to: person.email,
      subject: message.subject,
      text: message.text,
      urgent: message.urgent,
      timeoutMs: config.webhookTimeoutMs,
    });
    return { accepted: result.accepted, final: result.permanent, answer: result.answer };
  },
};
