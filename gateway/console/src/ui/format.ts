const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['second', 60],
  ['minute', 60],
  ['hour', 24],
  ['day', 7],
  ['week', 4.35],
  ['month', 12],
  ['year', Infinity],
];

/** "3 minutes ago", "in 2 hours". */
export function relative(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '';
  let value = (Date.parse(iso) - now) / 1000;
  for (const [unit, size] of STEPS) {
    if (Math.abs(value) < size) return rtf.format(Math.round(value), unit);
    value /= size;
  }
  return '';
}

export const dateTime = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '');

/** A duration in minutes as "1 h 05 min" / "3 d 4 h". */
export function duration(ms: number): string {
  const m = Math.round(Math.abs(ms) / 60_000);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${String(m % 60).padStart(2, '0')} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}

export const STATUS_LABELS: Record<string, string> = { new: 'New', open: 'Open', pending: 'Pending', resolved: 'Resolved', closed: 'Closed', merged: 'Merged' };
export const PRIORITY_LABELS: Record<string, string> = { low: 'Low', normal: 'Normal', high: 'High', urgent: 'Urgent' };
