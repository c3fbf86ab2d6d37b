/**
 * Electronic animal ids as ISO 11784/11785 (FDX-B and HDX transponders) define them, read from the ways
 * readers and people write them.
 *
 * ISO 11784 §6 (the code structure): a 64-bit code whose printed form is 15 decimal digits, the first three
 * the country (ISO 3166-1 numeric, 001–899) or, 900–998, a manufacturer's code (ICAR assigns them), and the
 * last twelve the national identification number, a 38-bit field: at most 274,877,906,943. The same number is
 * written many ways: `982 000001088420` (the ICAR and label form), `982000001088420`, `982.000001088420`,
 * `982-000001088420`, and a stick reader's line such as `LA 982 000001088420` (Tru-Test/Datamars and Allflex
 * readers prefix the tag type: LA for an ISO animal tag, A or FDX-B in other models). Every such form is
 * stored as the 15 digits, so an animal is found by any of them; a value that is not an ISO number (a
 * herd's own scheme, a 10-digit HDX code) is kept as given, and the animal's answer says so.
 */

/** The largest national identification number: its field has 38 bits (ISO 11784 §6). */
export const EID_MAX_NATIONAL_ID = 274_877_906_943;

/** A reader's tag-type prefix before the number (letters, then a space or a separator). */
const READER_PREFIX = /^[A-Za-z][A-Za-z-]{0,5}[\s:]+(?=\d)/;

/** The number in two parts (country or manufacturer, national id) with one separator, or 15 digits. */
const ISO_FORM = /^(\d{3})[\s.\-_/]?(\d{12})$/;

export type EidFormat = 'iso11784' | 'other';

export interface ReadEid {
  /** What is stored and compared: the 15 digits, or the value as given (trimmed) when it is not ISO. */
  eid: string;
  format: EidFormat;
}

/**
 * The stored form of an EID as given: the 15-digit number where it is an ISO 11784 number in any common
 * written form, else the value trimmed (kept as the spec allows any string).
 */
export function readEid(raw: string): ReadEid {
  const given = raw.trim();
  const number = given.replace(READER_PREFIX, '');
  const match = ISO_FORM.exec(number);
  if (match) {
    const [, code = '', national = ''] = match;
    const first = Number(code);
    // 000 is no country, and 999 is reserved for test transponders (ISO 11784 annex): not a real animal's.
    if (first >= 1 && first <= 998 && Number(national) <= EID_MAX_NATIONAL_ID) {
      return { eid: `${code}${national}`, format: 'iso11784' };
    }
  }
  return { eid: given, format: 'other' };
}

/** The stored form of an EID (see `readEid`). */
export function normalizeEid(raw: string): string {
  return readEid(raw).eid;
}

/** Whether a stored EID is an ISO 11784 number (15 digits with a valid country or manufacturer code). */
export function eidFormatOf(stored: string): EidFormat {
  return readEid(stored).format === 'iso11784' && stored.length === 15 ? 'iso11784' : 'other';
}

/** An EID as people read it: an ISO number as its label prints it (`982 000001088420`), else as stored. */
export function displayEid(stored: string): string {
  return eidFormatOf(stored) === 'iso11784' ? `${stored.slice(0, 3)} ${stored.slice(3)}` : stored;
}
