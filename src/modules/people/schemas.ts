import { type Static, Type } from 'typebox';
import { LANGUAGES, type LanguageName, UNIT_SYSTEMS, type UnitSystem } from '../../domain/display-units.ts';
import { ROLE_NAMES, type RoleName } from '../../domain/permissions.ts';
import { DateTime, Nullable } from '../../http/schemas.ts';
import { EMAIL_MAX_LENGTH, EMAIL_MIN_LENGTH, EMAIL_PATTERN } from './email.ts';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './passwords.ts';

const Mode = Type.Union([Type.Literal('live'), Type.Literal('test')]);
/** The roles of ROLE_PRESETS (src/domain/permissions.ts), where they are written once. */
export const Role = Type.Unsafe<RoleName>({
  type: 'string',
  enum: ROLE_NAMES,
  description: 'owner: everything. crew: field work (docs/people.md lists what each role may do).',
});
/** How the console and notifications show quantities; the API and storage stay in the catalog's units. */
export const Units = Type.Unsafe<UnitSystem>({
  type: 'string',
  enum: UNIT_SYSTEMS,
  description: 'metric (kg, °C, ha, L, km, mm) or us (lb, °F, acres, US gallons, miles, inches).',
});
/** The language the console and notifications speak. */
export const Language = Type.Unsafe<LanguageName>({
  type: 'string',
  enum: LANGUAGES,
  description: 'en (English) or es (Spanish).',
});

export const PreferencesBody = Type.Object(
  { units: Type.Optional(Units), language: Type.Optional(Language) },
  { additionalProperties: false, minProperties: 1 },
);
export type PreferencesInput = Static<typeof PreferencesBody>;

const Email = (description?: string) =>
  Type.String({
    minLength: EMAIL_MIN_LENGTH,
    maxLength: EMAIL_MAX_LENGTH,
    pattern: EMAIL_PATTERN,
    ...(description ? { description } : {}),
  });
const Password = (description: string) =>
  Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH, description });
const AccountRef = Type.Object({ id: Type.String(), name: Type.String() });

export const PersonSchema = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('person'),
    email: Type.String(),
    name: Nullable(Type.String()),
    role: Role,
    created_at: DateTime(),
    last_sign_in_at: Nullable(DateTime()),
    units: Units,
    language: Language,
  },
  { $id: 'Person', title: 'Person' },
);

export const SessionSchema = Type.Object(
  {
    object: Type.Literal('session'),
    person: Type.Ref('Person'),
    account: AccountRef,
    mode: Type.Union(Mode.anyOf, {
      description: 'live or test: which farms the session shows and acts on (PATCH /v1/session).',
    }),
    csrf_token: Type.String({
      description: 'Send it in the X-CSRF-Token header with every write made with the session cookie.',
    }),
    expires_at: DateTime('When the session ends if unused (30 days idle; each use moves it on).'),
  },
  { $id: 'Session', title: 'Session' },
);

export const SignInBody = Type.Object(
  { email: Email(), password: Password('The password.') },
  { additionalProperties: false },
);

export const SessionPatchBody = Type.Object({ mode: Mode }, { additionalProperties: false });

export const PasswordChangeBody = Type.Object(
  {
    current_password: Password('The password now.'),
    new_password: Password(`The new password: at least ${PASSWORD_MIN_LENGTH} characters.`),
  },
  { additionalProperties: false },
);

export const SetupSchema = Type.Object({
  object: Type.Literal('setup'),
  email: Nullable(Type.String({ description: 'The email the link is for; null: the person chooses it.' })),
  role: Role,
  account: AccountRef,
  expires_at: DateTime(),
});

export const SetupBody = Type.Object(
  {
    email: Type.Optional(
      Email('Required when the link names no email; otherwise, if sent, it must be that email.'),
    ),
    password: Password(`At least ${PASSWORD_MIN_LENGTH} characters.`),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    units: Type.Optional(Units),
    language: Type.Optional(Language),
  },
  { additionalProperties: false },
);

export const TokenParams = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);

export const InviteBody = Type.Object({ email: Email(), role: Role }, { additionalProperties: false });

export const InviteSchema = Type.Object({
  object: Type.Literal('invite'),
  url: Type.String({ description: 'The one-time setup link to hand to the person (valid 24 hours, once).' }),
  email: Type.String(),
  role: Role,
  expires_at: DateTime(),
});

export const PersonPatchBody = Type.Object({ role: Role }, { additionalProperties: false });

export const PeopleListSchema = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(Type.Ref('Person')),
});

export type Person = Static<typeof PersonSchema>;
export type Session = Omit<Static<typeof SessionSchema>, 'person'> & { person: Person };
export type Setup = Static<typeof SetupSchema>;
export type Invite = Static<typeof InviteSchema>;
export type PeopleList = { object: 'list'; data: Person[] };
export type SetupInput = Static<typeof SetupBody>;
