import type { Response } from 'express';

export interface ExportedEvent {
  id: string;
  createdAt: Date;
  eventType: string;
  imageId: string | null;
  metadata: unknown;
  /** Identical events this line stands for (coalesced before they were stored). */
  count: number;
}

const csvCell = (value: string): string => (/[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);

export const CSV_HEADER = 'createdAt,eventType,imageId,metadata,id,count';

export function toCsvLine(e: ExportedEvent): string {
  return [e.createdAt.toISOString(), e.eventType, e.imageId ?? '', e.metadata == null ? '' : JSON.stringify(e.metadata), e.id, String(e.count)]
    .map(csvCell)
    .join(',');
}

export const toNdjsonLine = (e: ExportedEvent): string =>
  JSON.stringify({ createdAt: e.createdAt.toISOString(), eventType: e.eventType, imageId: e.imageId, metadata: e.metadata ?? null, id: e.id, count: e.count });

/** Streams events as CSV or NDJSON, respecting back-pressure. */
export async function streamEvents(res: Response, format: 'csv' | 'ndjson', events: AsyncIterable<ExportedEvent>): Promise<void> {
  res.setHeader('Content-Type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson');
  res.setHeader('Cache-Control', 'no-store');
  if (format === 'csv') res.write(`${CSV_HEADER}\n`);
  for await (const event of events) {
    const ok = res.write(`${format === 'csv' ? toCsvLine(event) : toNdjsonLine(event)}\n`);
    if (!ok) await new Promise((resolve) => res.once('drain', resolve));
  }
  res.end();
}
