/**
 * The storefront's one date format, for the pages rendered at catalog build and for their scripts
 * alike: "29 Nov 2026" for a day, "29 Nov 2026, 09:06 UTC" for a moment. Always UTC and always
 * British English, whatever the browser's locale, so a date reads the same on every page, as the
 * ledger's rows (recorded in UTC) and the days of its charts do.
 */
function format(iso: string, time: boolean): string {
  const d = new Date(iso.length === 10 ? `${iso}T00:00Z` : iso);
  if (Number.isNaN(d.getTime())) return iso;
  const text = d.toLocaleString('en-GB', {
    timeZone: 'UTC',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    ...(time ? { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' } : {}),
  });
  return time ? `${text} UTC` : text;
}

/** A day, "29 Nov 2026", from an ISO day ("2026-11-29") or time; the text as given if it is not a date. */
export const formatDay = (iso: string): string => format(iso, false);

/** A moment, "29 Nov 2026, 09:06 UTC", from an ISO time; the text as given if it is not a date. */
export const formatTime = (iso: string): string => format(iso, true);
