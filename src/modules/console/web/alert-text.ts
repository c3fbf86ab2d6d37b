/**
 * An alert's title and reason as the signed-in person reads them (issue 45): written from the alert's words
 * (src/domain/alert-words.ts) in their language, with quantities in their units; an alert without words
 * (opened before they existed, or a key this console does not know) shows its English text. English readers
 * get the stored English, which also carries a resolution's note.
 */
import { alertWordsOf, renderAlertReason, renderAlertWord } from '../../../domain/alert-words.ts';
import { inReaderUnits, reader } from './i18n.ts';
import { withReaderDates } from './sentence-dates.ts';

/** What the pages hold of an alert (the API's Alert, or the acknowledge link's summary). */
export interface AlertTexts {
  title: string;
  reason: string;
  words?: unknown;
}

function text(alert: AlertTexts, part: 'title' | 'reason', timezone?: string): string {
  const words = reader.language === 'en' ? null : alertWordsOf(alert.words);
  const rendered =
    words &&
    (part === 'reason'
      ? renderAlertReason(reader.language, words)
      : renderAlertWord(reader.language, words.title));
  return withReaderDates(inReaderUnits(rendered ?? alert[part]), timezone);
}

/** "Temperatura alta en Gallinero 2" for a Spanish reader; the English title otherwise. */
export function alertTitle(alert: AlertTexts): string {
  return text(alert, 'title');
}

/** The reason in the reader's language and units, its dates in their form (an instant in `timezone`). */
export function alertReason(alert: AlertTexts, timezone?: string): string {
  return text(alert, 'reason', timezone);
}
