/** UTC calendar days as `yyyy-mm-dd`: the unit of revenue by day, listings and signal windows. */

/** One regex for the format; {@link isDay} also checks the day exists. */
export const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The UTC day of an instant. */
export const dayOf = (at: Date): string => at.toISOString().slice(0, 10);

/** Whether `s` is a real calendar day in the format (2026-02-30 is not). */
export const isDay = (s: string): boolean =>
  DAY.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && dayOf(new Date(`${s}T00:00:00Z`)) === s;

/** `day` moved by `n` days (negative: earlier). */
export const addDays = (day: string, n: number): string => dayOf(new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000));

/** Whole days from `from` to `to` (0 for the same day). */
export const daysBetween = (from: string, to: string): number =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
