/** The agent consent page's words (pages/connect.ts; web/i18n.ts `words`). */
import type { Message } from '../../../../lib/message-format.ts';

export const EN = {
  'help.read': 'Sees farms, animals, tasks, events, alerts, houses and readings. Changes nothing.',
  'help.record': 'Also adds tasks and farm events, records animals, and acknowledges or resolves alerts.',
  'help.full':
    'Also sends house and device commands (doors, feeders, moving a house) and changes farm records.',
  'level.read': 'Read only',
  'level.record': 'Read and record',
  'level.full': 'Full',
  ask: 'Connect {client}?',
  asks: '{client} asks to use Farmstead as {email}. When you answer, you go back to {host}.',
  published: 'Its description is published by {publisher}.',
  trust:
    'The name is what the app calls itself. Allow only if you just connected it from an app you trust at that address.',
  mode: 'Mode',
  live: 'Live farms',
  test: 'Test farms (sample)',
  farms: 'Farms',
  every_live: 'Every live farm, also ones added later',
  every_test: 'Every test farm, also ones added later',
  no_live: 'No live farms yet.',
  no_test: 'No test farms yet.',
  may: 'What it may do',
  connecting: 'Connecting…',
  allow: 'Allow',
  deny: 'Deny',
  later: 'You can disconnect it at any time on',
  account_page: 'your account page',
  title: 'Connect an agent',
  no_request:
    'An AI agent such as Claude or ChatGPT opens this page when it asks to use Farmstead. Add this server to the agent by its URL ({url}); it sends you here to allow it.',
} as const satisfies Record<string, Message>;

export const ES: Record<keyof typeof EN, Message> = {
  'help.read': 'Ve granjas, animales, tareas, eventos, alertas, gallineros y lecturas. No cambia nada.',
  'help.record':
    'Además agrega tareas y eventos de la granja, registra animales y confirma o resuelve alertas.',
  'help.full':
    'Además envía órdenes a gallineros y dispositivos (trampillas, comederos, mover un gallinero) y cambia los registros de la granja.',
  'level.read': 'Solo lectura',
  'level.record': 'Lectura y registro',
  'level.full': 'Completo',
  ask: '¿Conectar {client}?',
  asks: '{client} pide usar Farmstead como {email}. Cuando responda, volverá a {host}.',
  published: 'Su descripción la publica {publisher}.',
  trust:
    'El nombre es como se llama la aplicación a sí misma. Permita solo si acaba de conectarla desde una aplicación de confianza en esa dirección.',
  mode: 'Modo',
  live: 'Granjas reales',
  test: 'Granjas de prueba (ejemplo)',
  farms: 'Granjas',
  every_live: 'Todas las granjas reales, también las que se agreguen después',
  every_test: 'Todas las granjas de prueba, también las que se agreguen después',
  no_live: 'Todavía no hay granjas reales.',
  no_test: 'Todavía no hay granjas de prueba.',
  may: 'Qué puede hacer',
  connecting: 'Conectando…',
  allow: 'Permitir',
  deny: 'Denegar',
  later: 'Puede desconectarla en cualquier momento en',
  account_page: 'la página de su cuenta',
  title: 'Conectar un agente',
  no_request:
    'Un agente de IA como Claude o ChatGPT abre esta página cuando pide usar Farmstead. Agregue este servidor al agente con su URL ({url}); el agente lo trae aquí para que lo permita.',
};
