import type { Element } from '@xmldom/xmldom';
import { refuse } from './saml-refusal.js';

/** SAML Core §1.3.3: xs:dateTime in UTC, with a "Z" and no other zone; fractions beyond milliseconds are ignored. */
const UTC_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?Z$/;

/** The instant of a time attribute in milliseconds; undefined when absent, refused when malformed. */
export function timeAttribute(element: Element, name: string, what: string): number | undefined {
  const value = element.getAttribute(name);
  if (value === null) return undefined;
  const match = UTC_DATE_TIME.exec(value);
  if (!match) refuse(`its ${what} is not a UTC time`);
  const [, year, month, day, hour, minute, second, fraction = ''] = match.map((part) => part ?? '') as string[];
  const iso = `${year}-${month}-${day}T${hour}:${minute}:${second}.${fraction.padEnd(3, '0').slice(0, 3)}Z`;
  const instant = Date.parse(iso);
  // Date.parse rolls 31 February over into March: a date that does not print back is not one.
  if (Number.isNaN(instant) || new Date(instant).toISOString() !== iso) refuse(`its ${what} is not a UTC time`);
  return instant;
}
