import type { Locale } from '../../records/locales.js';

type Unit = 'second' | 'minute' | 'hour' | 'day';

/** "5 minutes", "5 Minuten", "5 minutes": a number of a unit written out, with the language's plural. */
export function amountOf(locale: Locale, unit: Unit, amount: number): string {
  return new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: 'long' }).format(amount);
}

/** A length of time in its largest whole unit: "1 hour", "5 minutes", "90 seconds". */
export function exactDuration(locale: Locale, seconds: number): string {
  if (seconds % 3600 === 0) return amountOf(locale, 'hour', seconds / 3600);
  if (seconds % 60 === 0) return amountOf(locale, 'minute', seconds / 60);
  return amountOf(locale, 'second', seconds);
}

/** A length of time rounded to a unit a person reads at a glance: "90 seconds", "15 minutes", "3 hours", "2 days". */
export function roundedDuration(locale: Locale, seconds: number): string {
  if (seconds < 120) return amountOf(locale, 'second', seconds);
  if (seconds < 2 * 3600) return amountOf(locale, 'minute', Math.round(seconds / 60));
  if (seconds < 2 * 86400) return amountOf(locale, 'hour', Math.round(seconds / 3600));
  return amountOf(locale, 'day', Math.round(seconds / 86400));
}
