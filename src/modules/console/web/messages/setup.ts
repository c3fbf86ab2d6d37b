/** The setup link page's words (pages/setup.ts; web/i18n.ts `words`). */
import type { Message } from '../../../../lib/message-format.ts';

export const EN = {
  short: 'The password needs at least {count} characters.',
  differ: 'The two passwords differ; type the same password twice.',
  gone_title: 'This link no longer works',
  gone: 'Setup links work once and for 24 hours. Ask the account’s owner for a new one, or run {command} on the server.',
  sign_in: 'Sign in',
  sign_in_hint: 'if you already have a password.',
  title: 'Set up your sign-in',
  joining: 'You are joining {account} as {role}.',
  email: 'Email',
  name: 'Your name',
  optional: '(optional)',
  password: 'Password',
  at_least: '(at least {count} characters)',
  again: 'Password again',
  saving: 'Saving…',
  submit: 'Save and sign in',
} as const satisfies Record<string, Message>;

export const ES: Record<keyof typeof EN, Message> = {
  short: 'La contraseña necesita al menos {count} caracteres.',
  differ: 'Las dos contraseñas no coinciden; escriba la misma contraseña dos veces.',
  gone_title: 'Este enlace ya no funciona',
  gone: 'Los enlaces de configuración funcionan una vez y durante 24 horas. Pida uno nuevo al propietario de la cuenta, o ejecute {command} en el servidor.',
  sign_in: 'Inicie sesión',
  sign_in_hint: 'si ya tiene una contraseña.',
  title: 'Configure su acceso',
  joining: 'Se une a {account} como {role}.',
  email: 'Correo electrónico',
  name: 'Su nombre',
  optional: '(opcional)',
  password: 'Contraseña',
  at_least: '(al menos {count} caracteres)',
  again: 'Repita la contraseña',
  saving: 'Guardando…',
  submit: 'Guardar e iniciar sesión',
};
