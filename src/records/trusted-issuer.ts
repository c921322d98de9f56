import { X509Certificate } from 'node:crypto';
import { z } from 'zod';
import { CLIENT_ID, publicJwk } from './client.js';

export const TRUSTED_ISSUER_KINDS = ['jwt', 'saml2'] as const;
export type TrustedIssuerKind = (typeof TRUSTED_ISSUER_KINDS)[number];

/** Which attribute of a realm user the assertion's subject names. */
export const SUBJECT_MAPPINGS = ['username', 'email', 'id'] as const;
export type SubjectMapping = (typeof SUBJECT_MAPPINGS)[number];

/** An X.509 certificate in PEM, as the SAML issuer signs with it; stored as node:crypto writes it back. */
const certificatePem = z
  .string()
  .max(20_000)
  .transform((pem, ctx) => {
    try {
      return new X509Certificate(pem).toString();
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a PEM X.509 certificate' });
      return z.NEVER;
    }
  });

const trustedIssuerFields = {
  kind: z.enum(TRUSTED_ISSUER_KINDS),
  /** The JWT `iss`, or the SAML assertion's `<Issuer>`. */
  issuer: z.string().min(1).max(2000),
  jwks: z.strictObject({ keys: z.array(publicJwk).min(1).max(20) }).optional(),
  jwks_uri: z.url({ protocol: /^https$/, error: 'must be an https URL' }).max(2000).optional(),
  certificate_pem: certificatePem.optional(),
  subject_mapping: z.enum(SUBJECT_MAPPINGS),
  /** The clients that may present its assertions; absent: every client of the realm allowed the grant. */
  client_ids: z.array(z.string().regex(CLIENT_ID)).max(200).optional(),
  /**
   * Its JWT bearer assertions are ID-JAGs (draft-ietf-oauth-identity-assertion-authz-grant §5,
   * CONTRACT.md §15): typed `oauth-id-jag+jwt`, each for the client its `client_id` names, whose
   * `sub` is the person linked to the issuer's subject; it is trusted for nothing else.
   */
  id_jag: z.boolean().optional(),
  /** With `id_jag`: an unlinked subject is the person whose verified email the ID-JAG names (`email`, `email_verified: true`). */
  link_by_email: z.boolean().optional(),
};

export const TrustedIssuerSchema = z.strictObject(trustedIssuerFields);
export type TrustedIssuerRecord = z.output<typeof TrustedIssuerSchema>;

/** What an admin sends to create one: `subject_mapping` defaults to `username` (CONTRACT.md §5). */
export const TrustedIssuerCreateSchema = TrustedIssuerSchema.extend({ subject_mapping: trustedIssuerFields.subject_mapping.optional() });
/** PATCH: any field but the kind; `null` clears an optional one (`client_ids`: every client again). */
export const TrustedIssuerPatchSchema = TrustedIssuerSchema.omit({ kind: true })
  .partial()
  .extend({
    jwks: trustedIssuerFields.jwks.unwrap().nullable().optional(),
    jwks_uri: trustedIssuerFields.jwks_uri.unwrap().nullable().optional(),
    certificate_pem: trustedIssuerFields.certificate_pem.unwrap().nullable().optional(),
    client_ids: trustedIssuerFields.client_ids.unwrap().nullable().optional(),
  });

/** Rules between fields, each naming its field; empty when the record holds together. */
export function trustedIssuerProblems(record: TrustedIssuerRecord): string[] {
  if (record.link_by_email && !record.id_jag) return ['link_by_email: only an id_jag issuer links subjects by email'];
  if (record.kind === 'jwt') {
    if (record.certificate_pem !== undefined) return ['certificate_pem: a jwt issuer is trusted by its keys (jwks or jwks_uri)'];
    if ((record.jwks === undefined) === (record.jwks_uri === undefined)) return ['jwks: give jwks or jwks_uri, exactly one'];
    return [];
  }
  if (record.id_jag) return ['id_jag: an ID-JAG is a JWT: only a jwt issuer issues them'];
  if (record.jwks !== undefined || record.jwks_uri !== undefined) return ['jwks: a saml2 issuer is trusted by its certificate_pem'];
  if (record.certificate_pem === undefined) return ['certificate_pem: a saml2 issuer needs the certificate it signs with'];
  return [];
}

/** Whether `clientId` may present this issuer's assertions. */
export function admitsClient(record: Pick<TrustedIssuerRecord, 'client_ids'>, clientId: string): boolean {
  return record.client_ids === undefined || record.client_ids.includes(clientId);
}
