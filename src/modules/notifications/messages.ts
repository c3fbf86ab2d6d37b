/**
 * What notifications say, in each language a person may choose (PATCH /v1/me `language`): whole messages
 * with placeholders (src/lib/message-format.ts). English is the source; every language has every key, with
 * the same placeholders (messages.test.ts).
 */
import type { LanguageName } from '../../domain/display-units.ts';
import type { Message } from '../../lib/message-format.ts';

const en = {
  severity_urgent: 'Urgent',
  severity_watch: 'Watch',
  severity_info: 'Info',
  alert_title: '{severity}: {title}',
  alert_title_again: '{severity}: {title} (not acknowledged yet)',
  alert_body: '{reason} — {farm}, {time}',
  resolved_title: 'Resolved: {title}',
  resolved_body: '{reason} — {farm}, resolved {time}',
  email_open_alert: 'Open the alert: {url}',
  email_acknowledge: 'Acknowledge it: {url}',
  email_signature: '— Farmstead, {farm}. Change what you are sent on your Account page in the console.',
  email_open_brief: 'Open the brief: {url}',
  brief_subject: '{farm}: {headline}',
  action_acknowledge: 'Acknowledge',
  action_open: 'Open',
  test_title: 'Farmstead test notification',
  test_body: 'Notifications reach you here. Alerts will look like this.',
  email_unavailable:
    'Email is not set up on this server: the operator sets FARMSTEAD_SMTP_URL and FARMSTEAD_EMAIL_FROM.',
} as const satisfies Record<string, Message>;

export type NoticeKey = keyof typeof en;

const es: Record<NoticeKey, Message> = {
  severity_urgent: 'Urgente',
  severity_watch: 'Atención',
  severity_info: 'Aviso',
  alert_title: '{severity}: {title}',
  alert_title_again: '{severity}: {title} (aún sin confirmar)',
  alert_body: '{reason} — {farm}, {time}',
  resolved_title: 'Resuelta: {title}',
  resolved_body: '{reason} — {farm}, resuelta a las {time}',
  email_open_alert: 'Abrir la alerta: {url}',
  email_acknowledge: 'Confirmarla: {url}',
  email_signature: '— Farmstead, {farm}. Cambie lo que recibe en la página Mi cuenta de la consola.',
  email_open_brief: 'Abrir el resumen: {url}',
  brief_subject: '{farm}: {headline}',
  action_acknowledge: 'Confirmar',
  action_open: 'Abrir',
  test_title: 'Notificación de prueba de Farmstead',
  test_body: 'Las notificaciones le llegan aquí. Las alertas se verán así.',
  email_unavailable:
    'El correo no está configurado en este servidor: el operador define FARMSTEAD_SMTP_URL y FARMSTEAD_EMAIL_FROM.',
};

export const NOTICE_MESSAGES: Readonly<Record<LanguageName, Readonly<Record<NoticeKey, Message>>>> = {
  en,
  es,
};
