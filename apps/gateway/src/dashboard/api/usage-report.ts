import type { UsageDay } from '@promptpix/contracts';

const DAY_MS = 86_400_000;

/** The UTC date (YYYY-MM-DD) of an instant. */
export const utcDate = (at: Date): string => at.toISOString().slice(0, 10);

/** The last `days` UTC dates up to and including today's, oldest first. */
export function usageDates(now: Date, days: number): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, i) => utcDate(new Date(today - (days - 1 - i) * DAY_MS)));
}

export interface DailyCount {
  day: string;
  eventType: 'generate' | 'cache_hit' | 'impression' | 'click';
  count: number;
}

const FIELD_OF: Record<DailyCount['eventType'], keyof Omit<UsageDay, 'date'>> = {
  generate: 'generations',
  cache_hit: 'cacheHits',
  impression: 'impressions',
  click: 'clicks',
};

/** One entry per date, in the dates' order, zero where no events were counted. */
export function usageDays(dates: string[], counts: DailyCount[]): UsageDay[] {
  const byDate = new Map<string, UsageDay>(dates.map((date) => [date, { date, generations: 0, cacheHits: 0, impressions: 0, clicks: 0 }]));
  for (const { day, eventType, count } of counts) {
    const entry = byDate.get(day);
    const field = FIELD_OF[eventType];
    if (entry && field) entry[field] += Number(count);
  }
  return [...byDate.values()];
}

export const USAGE_CSV_HEADER = 'date,generations,cache_hits,impressions,clicks';

/** The CSV export of the same days: a header line, then one line per day (CRLF-free, trailing newline). */
export const usageCsv = (days: UsageDay[]): string =>
  `${[USAGE_CSV_HEADER, ...days.map((d) => `${d.date},${d.generations},${d.cacheHits},${d.impressions},${d.clicks}`)].join('\n')}\n`;
