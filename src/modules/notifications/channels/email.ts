/**
 * Email through the operator's SMTP server (FARMSTEAD_SMTP_URL) with nodemailer: plain text, a link to
 * the alert. No SMTP configured: email is not offered at all. Touches no database.
 */
import nodemailer, { type Transporter } from 'nodemailer';

export interface EmailResult {
  accepted: boolean;
  answer: string;
  /** A permanent refusal (5xx): retrying will not help. */
  permanent: boolean;
}

const transports = new Map<string, Transporter>();

function transportFor(smtpUrl: string, timeoutMs: number): Transporter {
  const key = `${timeoutMs} ${smtpUrl}`;
  let transport = transports.get(key);
  if (!transport) {
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

/** Why email is not offered, or null when it is. */
export function emailUnavailableReason(smtpUrl: string | null): string | null {
  return smtpUrl
    ? null
    : 'Email is not set up on this server: the operator sets FARMSTEAD_SMTP_URL and FARMSTEAD_EMAIL_FROM.';
}

/** Sends one message. Never throws. */
export async function sendEmail(
  smtpUrl: string,
  message: { from: string; to: string; subject: string; text: string; urgent: boolean; timeoutMs: number },
): Promise<EmailResult> {
  try {
    const info = await transportFor(smtpUrl, message.timeoutMs).sendMail({
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
