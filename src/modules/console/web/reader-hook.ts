/** Re-renders a component when the person's language or units change (web/i18n.ts). */
import { onReaderChange, type Reader, reader } from './i18n.ts';
import { useEffect, useState } from './lib.ts';

export function useReader(): Reader {
  const [, setTick] = useState(0);
  useEffect(() => onReaderChange(() => setTick((n) => n + 1)), []);
  return reader;
}
