/**
 * The session files weigh-session imports read, one adapter each (docs/records.md "Weigh session files"
 * cites the vendors' documents): which header names mean the EID, the visual tag, the weight, the date, the
 * time and extra traits, and how a file is recognised. Adding an indicator is its entry here, its sample file
 * in fixtures/ and its row in the docs.
 *
 * Header names are compared loosely (case, spaces and punctuation ignored: "Weight (kg)" is "weightkg").
 */

export interface SessionFormat {
  /** What a person calls the indicators this reads. */
  readonly label: string;
  readonly eid: readonly string[];
  readonly tag: readonly string[];
  readonly kg: readonly string[];
  readonly date: readonly string[];
  readonly time: readonly string[];
  /** Trait name → header names. */
  readonly traits: Readonly<Record<string, readonly string[]>>;
  /** Header names only this vendor's files have: the file is read as this format when one is present. */
  readonly marks: readonly string[];
}

/**
 * Datamars Livestock (Tru-Test XR5000, ID5000, EziWeigh and the SRS2/XRS2 stick readers): its ID fields are
 * VID (visual), EID (electronic) and LID (life id); Weight and BCS are session data; a session file has a
 * Date and a Time column (Datamars Livestock help, "Types of data: life data, session data and animal IDs").
 */
const datamars: SessionFormat = {
  label: 'Datamars Livestock / Tru-Test XR5000, ID5000, EziWeigh (CSV export)',
  eid: ['EID', 'Electronic ID'],
  tag: ['VID', 'Visual ID', 'LID', 'Life ID'],
  kg: ['Weight', 'Weight (kg)', 'Weight (lb)', 'Weight kg', 'Weight lb'],
  date: ['Date', 'Weigh Date'],
  time: ['Time', 'Weigh Time'],
  traits: {
    condition_score: ['BCS', 'Condition Score'],
    note: ['Note', 'Notes', 'Comment'],
    draft: ['Draft', 'Drafting'],
  },
  marks: ['VID', 'LID'],
};

/**
 * Gallagher weigh scales and readers (TW-1, TW-3, TWR, TSi, W810) as Gallagher Animal Performance exports
 * their sessions: a standard session keeps the tag, the electronic id, the weight with its date and time,
 * a note and a condition score; a session file's name leads with its date and time ("2004-01-25 15-20
 * STEERS") and may lead the file too, above the header (Gallagher W810 v2 user manual, "Sessions").
 */
const gallagher: SessionFormat = {
  label: 'Gallagher TW-1, TW-3, TWR, TSi, W810 (session CSV)',
  eid: ['Electronic ID', 'EID', 'Electronic Id'],
  tag: ['Visual Tag', 'Tag', 'Visual ID', 'VID'],
  kg: ['Weight', 'Weight (kg)', 'Weight (lb)', 'Live Weight'],
  date: ['Date', 'Weigh Date', 'Record Date'],
  time: ['Time', 'Weigh Time', 'Record Time'],
  traits: {
    condition_score: ['Condition Score', 'Cond Score', 'BCS'],
    note: ['Note', 'Notes'],
    draft: ['Draft', 'Draft Gate'],
  },
  marks: ['Electronic ID', 'Visual Tag', 'Condition Score'],
};

/** Any CSV: every adapter's names are guessed from, and the person's mapping confirms them. */
const csv: SessionFormat = {
  label: 'Any CSV, with a column mapping you confirm',
  eid: [...new Set([...datamars.eid, ...gallagher.eid, 'RFID', 'Transponder', 'NLIS', 'ISO'])],
  tag: [...new Set([...datamars.tag, ...gallagher.tag, 'Ear Tag', 'Tag Number', 'Management Tag'])],
  kg: [...new Set([...datamars.kg, ...gallagher.kg, 'kg', 'Weight kg', 'Mass'])],
  date: [...new Set([...datamars.date, ...gallagher.date, 'Datetime', 'Date/Time', 'Weighed'])],
  time: [...new Set([...datamars.time, ...gallagher.time])],
  traits: {
    condition_score: ['BCS', 'Condition Score', 'Cond Score', 'CS'],
    note: ['Note', 'Notes', 'Comment'],
  },
  marks: [],
};

export const SESSION_FORMAT_REGISTRY = Object.freeze({ datamars, gallagher, csv });
export type SessionFormatName = keyof typeof SESSION_FORMAT_REGISTRY;
export const SESSION_FORMATS = Object.keys(SESSION_FORMAT_REGISTRY) as SessionFormatName[];

/** A header name as compared: lower case, letters and digits only. */
export function headerKey(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** The columns of a file: what the mapping names, as header cells found in the file. */
export interface ColumnMapping {
  eid?: string;
  tag?: string;
  kg?: string;
  date?: string;
  time?: string;
  traits?: Record<string, string>;
}

/** The first header cell answering to one of the names, or undefined. */
function pick(header: readonly string[], names: readonly string[]): string | undefined {
  const wanted = new Set(names.map(headerKey));
  return header.find((cell) => wanted.has(headerKey(cell)));
}

/** The format a header row reads as: a vendor whose marks it has, else the generic CSV. */
export function detectFormat(header: readonly string[]): SessionFormatName {
  for (const name of ['datamars', 'gallagher'] as const) {
    if (pick(header, SESSION_FORMAT_REGISTRY[name].marks)) return name;
  }
  return 'csv';
}

/** Whether a row could be the header: it names a weight column of any format. */
export function looksLikeHeader(cells: readonly string[]): boolean {
  return pick(cells, csv.kg) !== undefined;
}

/** The mapping a format reads from a header row (what a dry run proposes). */
export function guessMapping(format: SessionFormatName, header: readonly string[]): ColumnMapping {
  const f = SESSION_FORMAT_REGISTRY[format];
  const traits: Record<string, string> = {};
  for (const [trait, names] of Object.entries(f.traits)) {
    const column = pick(header, names);
    if (column !== undefined) traits[trait] = column;
  }
  const mapping: ColumnMapping = {};
  for (const member of ['eid', 'tag', 'kg', 'date', 'time'] as const) {
    const column = pick(header, f[member]);
    if (column !== undefined) mapping[member] = column;
  }
  if (Object.keys(traits).length > 0) mapping.traits = traits;
  return mapping;
}

/** The unit a weight header names ("Weight (lb)"), or null. */
export function unitOfHeader(column: string): 'kg' | 'lb' | null {
  const key = headerKey(column);
  if (key.endsWith('lb') || key.endsWith('lbs')) return 'lb';
  if (key.endsWith('kg')) return 'kg';
  return null;
}
