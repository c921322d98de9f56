import { z } from 'zod';

/** OpenID Connect Core §8: what `sub` a client sees of a person. */
export const SUBJECT_TYPES = ['public', 'pairwise'] as const;

/** The client fields of pairwise subjects (CONTRACT.md §13), part of the client record (src/records/client.ts). */
export const subjectFields = {
  /**
   * `pairwise` gives the client a `sub` of its own for each person, one per sector
   * (src/tokens/subject.ts). Records written before it have none: public.
   */
  subject_type: z
    .enum(SUBJECT_TYPES)
    .describe('`public`: every client sees the same `sub` of a person; `pairwise`: a `sub` of its sector alone (OpenID Connect Core §8); absent: public')
    .optional(),
  /**
   * OpenID Connect Registration §2: an https JSON array of URIs that must list every redirect
   * URI; its host is the sector of a pairwise client. Fetched when it is set (src/clients/sector-identifier.ts).
   */
  sector_identifier_uri: z
    .url({ protocol: /^https$/, error: 'must be an https URL' })
    .max(2000)
    .describe('An https URL of a JSON array listing every redirect URI of the client; its host is the sector of pairwise subjects (OpenID Connect Core §8.1)')
    .optional(),
};

const hostOf = (uri: string): string => {
  try {
    return new URL(uri).hostname;
  } catch {
    return '';
  }
};

/**
 * OpenID Connect Core §8.1: a pairwise client without a sector_identifier_uri has its sector
 * named by its redirect URIs, which must then share one host. The problems, if any.
 */
export function pairwiseSectorProblems(m: {
  subject_type?: string | undefined;
  sector_identifier_uri?: string | undefined;
  redirect_uris: readonly string[];
}): Array<{ field: 'sector_identifier_uri'; message: string }> {
  if (m.subject_type !== 'pairwise' || m.sector_identifier_uri) return [];
  const hosts = new Set(m.redirect_uris.map(hostOf));
  const problem = (message: string) => [{ field: 'sector_identifier_uri' as const, message }];
  if (hosts.size === 0 || hosts.has('')) return problem('a pairwise client needs it, or redirect_uris with a host, to name its sector (OpenID Connect Core §8.1)');
  if (hosts.size > 1) return problem('the redirect_uris of a pairwise client have several hosts: it needs a sector_identifier_uri listing them (OpenID Connect Core §8.1)');
  return [];
}
