import { z } from 'zod';
import { isStorableInstant } from './instant';

const isoInstant = z.iso.datetime({ offset: true });
const isoDate = z.iso.date();
const DAY_MS = 86_400_000;

/**
 * One end of the image list's date filter as an instant. A date (YYYY-MM-DD) is a UTC day: its
 * start for `from`, the start of the next day for `to` (so the day is included). An ISO 8601
 * instant with its offset is taken as given; the dashboard sends its own local midnights. Null
 * when the value is neither, or outside what PostgreSQL stores.
 */
export function listBoundOf(value: string, edge: 'from' | 'to'): Date | null {
  let instant: Date;
  if (isoDate.safeParse(value).success) instant = new Date(Date.parse(`${value}T00:00:00Z`) + (edge === 'to' ? DAY_MS : 0));
  else if (isoInstant.safeParse(value).success) instant = new Date(value);
  else return null;
  return isStorableInstant(instant) ? instant : null;
}
