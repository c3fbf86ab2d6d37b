/**
 * The console's words in English: the source catalog (web/i18n.ts). Keys are `<page or piece>.<name>`, so a
 * page's words are found and converted together; a message is whole, with `{placeholders}` and, where a
 * count changes the words, one text per plural category (src/lib/message-format.ts). Every language has
 * every key and no key is unused (src/modules/console/messages.test.ts).
 */
import type { Message } from '../../../../lib/message-format.ts';

export const EN = {
  // The shell: navigation names (CONSOLE_PAGES' `page`), the header.
  'nav.brief': 'Brief',
  'nav.alerts': 'Alerts',
  'nav.map': 'Map',
  'nav.houses': 'Houses',
  'nav.animals': 'Animals',
  'nav.animal': 'Animal',
  'nav.groups': 'Groups',
  'nav.paddocks': 'Paddocks',
  'nav.plan': 'Grazing plan',
  'nav.tasks': 'Tasks',
  'nav.events': 'Event log',
  'nav.devices': 'Devices',
  'nav.device': 'Device',
  'nav.data': 'Data',
  'nav.settings': 'Settings',
  'nav.integrations': 'Integrations',
  'nav.people': 'People',
  'nav.account': 'Your account',
  'nav.sync': 'Waiting to sync',
  'nav.connect': 'Connect an agent',
  'nav.sign-in': 'Sign in',
  'nav.setup': 'Set up your sign-in',
  'nav.ack': 'Acknowledge an alert',
  'nav.medicines': 'Medicine cabinet',
  'nav.treat': 'Give a treatment',
  'nav.movements': 'Holding register',
  'nav.chute': 'Chute',
  'nav.calving': 'Calving calendar',
  'shell.pages': 'Pages',
  'shell.farm': 'Farm',
  'shell.sign_out': 'Sign out',
  'shell.your_account': 'your account',
  'shell.more': 'More',

  'time.never': 'never',
  'time.just_now': 'just now',

  // Sign-in.
  'sign_in.title': 'Sign in to Farmstead',
  'sign_in.email': 'Email',
  'sign_in.password': 'Password',
  'sign_in.submit': 'Sign in',
  'sign_in.busy': 'Signing in…',
  'sign_in.no_password':
    'No password yet, or lost it? Ask the account’s owner for a setup link ({command} prints one).',

  // The account page: units and language.
  'account.reading': 'Units and language',
  'account.units': 'Units',
  'account.units_metric': 'Metric (kg, °C, hectares, litres, km, mm)',
  'account.units_us': 'US customary (lb, °F, acres, gallons, miles, inches)',
  'account.language': 'Language',
  'account.save_reading': 'Save units and language',
  'account.reading_saved': 'Saved: the console, emails and notifications now use them.',

  // The event log.
  'events.title': 'Event log',
  'events.filter_type': 'Type',
  'events.filter_subject': 'About',
  'events.any_type': 'Any type',
  'events.none': 'No events match.',
  'events.log_title': 'Log an event',
  'events.type': 'Type',
  'events.about': 'About (optional)',
  'events.when': 'When (blank for now)',
  'events.notes': 'Notes',
  'events.submit': 'Log event',
  'events.logged': 'Event logged',
  'events.details': 'Technical details',

  // Event types, as a picker names them.
  'event_type.weight': 'Weight',
  'event_type.treatment': 'Treatment',
  'event_type.move': 'Move',
  'event_type.birth': 'Birth',
  'event_type.sale': 'Sale',
  'event_type.slaughter': 'Slaughter',
  'event_type.death': 'Death',
  'event_type.note': 'Note',
  'event_type.feed.delivery': 'Feed delivery',
  'event_type.feed.refilled': 'Feeder refilled',
  'event_type.egg.collection': 'Egg collection',
  'event_type.movement': 'Movement on or off the holding',
  'event_type.reading': 'Reading',
  'event_type.alert.escalated': 'Alert escalated',
  'event_type.custom': 'Other: “{type}”',

  // The event log's sentences, one per known type (web/event-sentences.ts); {subject} is a name.
  'sentence.weight': 'Weighed {subject}: {weight}',
  'sentence.weight_by': 'Weighed {subject}: {weight}, by {device}',
  'sentence.move': 'Moved {subject} from {from} to {to}',
  'sentence.move_to': 'Moved {subject} to {to}',
  'sentence.move_out': 'Moved {subject} out of {from}',
  'sentence.treatment': 'Treated {subject} with {medicine}',
  'sentence.treatment_dose': 'Treated {subject} with {medicine}, {dose}',
  'sentence.birth': { one: 'Birth for {subject}: {count} born', other: 'Births for {subject}: {count} born' },
  'sentence.sale': 'Sold {subject}',
  'sentence.sale_to': 'Sold {subject} to {buyer}',
  'sentence.slaughter': 'Sent {subject} to slaughter',
  'sentence.death': '{subject} died',
  'sentence.death_cause': '{subject} died: {cause}',
  'sentence.note': 'Note on {subject}: {text}',
  'sentence.feed_delivery': 'Feed delivered to {subject}: {weight}',
  'sentence.feed_delivery_from': 'Feed delivered to {subject}: {weight} from {supplier}',
  'sentence.feed_refilled': 'Refilled the feeder of {subject} to {level}',
  'sentence.egg_collection': {
    one: 'Collected {count} egg from {subject}',
    other: 'Collected {count} eggs from {subject}',
  },
  'sentence.movement_on': {
    one: 'Moved {count} animal onto the holding from {holding}',
    other: 'Moved {count} animals onto the holding from {holding}',
  },
  'sentence.movement_off': {
    one: 'Moved {count} animal off the holding to {holding}',
    other: 'Moved {count} animals off the holding to {holding}',
  },
  'sentence.reading': 'Reading for {subject}: {value}',
  'sentence.alert_escalated': 'An alert about {subject} became urgent',
  'sentence.custom': '{type}: {subject}',
  'sentence.farm': 'the farm',
  'sentence.nowhere': 'no group or paddock',
  'sentence.unknown': 'a removed {kind}',
  'sentence.animal_named': '{name} ({tag})',
  'sentence.places': '{group} in {paddock}',
  'subject_kind.animal': 'animal',
  'subject_kind.group': 'group',
  'subject_kind.paddock': 'paddock',
  'subject_kind.device': 'device',
  'subject_kind.task': 'task',

  // The subject picker (web/subject-picker.ts).
  'picker.placeholder': 'Tag, name or EID',
  'picker.hint': 'Type a tag, a name or an EID, then choose with the arrow keys and Enter.',
  'picker.results': { zero: 'Nothing matches.', one: '{count} match', other: '{count} matches' },
  'picker.chosen': 'Chosen: {name}',

  // es-b: shared pieces and pages (settings, map, devices, …).
  'ui.try_again': 'Try again',
  'ui.loading': 'Loading…',
  'form.copy': 'Copy',
  'form.copied': 'Copied',
  'form.copy_failed': 'Select the text and copy it',
  'form.shown_once': 'shown only now. Copy it somewhere safe.',
  'command_status.queued': 'queued',
  'command_status.delivered': 'delivered',
  'command_status.done': 'done',
  'command_status.failed': 'failed',
} as const satisfies Record<string, Message>;

export type MessageKey = keyof typeof EN;
