/** A JSON body of exactly `size` bytes (at least 2), the same for every request of that size. */
export function jsonBodyOfSize(size: number): string {
  const shell = '{"pad":""}';
  if (size <= shell.length) return '{}'.padEnd(Math.max(2, size), ' ');
  return `{"pad":"${'x'.repeat(size - shell.length)}"}`;
}

/** The floor servers learn the body size from this header (sent by the bench on floor runs). */
export const FLOOR_SIZE_HEADER = 'x-floor-size';

export const sizeOf = (header: string | string[] | undefined): number => {
  const n = Number(Array.isArray(header) ? header[0] : header);
  return Number.isInteger(n) && n > 0 && n < 1_000_000 ? n : 64;
};
