/**
 * An alert's title and reason as the signed-in person reads them (issue 45): written from the alert's words
 * (src/domain/alert-words.ts) in their language, with quantities in their units; an alert without words
 * (opened before they existed, or a key this console does not know) shows its English text. English readers
 * get the stored English, which also carries a resolution's note.
 */
import { alertWordsOf, renderAlertReason, renderAlertWord } from '../../../domain/alert-words.ts';
import { inReaderUnits, reader } from './i18n.ts';

/** What the pages hold of an alert (the API's Alert, or the acknowledge link's summary). */
export interface AlertTexts {
  title: string;
  reason: string;
  words?: unknown;
}

function text(alert: AlertTexts, part: 'title' | 'reason'): string {
  const words = reader.language === 'en' ? null : alertWordsOf(alert.words);
  const rendered =
    words &&
    (part === 'reason'
      ? renderAlertReason(reader.language, words)
      : renderAlertWord(reader.language, words.title));
  return inReaderUnits(rendered ?? alert[part]);
}

/** "Temperatura alta en Gallinero 2" for a Spanish reader; the English title otherwise. */
export function alertTitle(alert: AlertTexts): string {
  return text(alert, 'title');
}

/** The reason in the reader's language and units. */
export function alertReason(alert: AlertTexts): string {
  return text(alert, 'reason');
}
