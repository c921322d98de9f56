import { z } from 'zod';

/** The answer of `PUT …/import`, as the document shows it and the tests hold answers to it (./import.ts ImportSummary). */
const SectionSummarySchema = z.strictObject({
  created: z.array(z.string()).describe('What the import created, by name'),
  changed: z.array(z.string()).describe('What it changed, by name (settings by setting)'),
  deleted: z.array(z.string()).describe('What it deleted, by name: only with `prune=true`'),
  unchanged: z.number().int().nonnegative().describe('How many it found as the document describes them, and did not write'),
});

export const RealmImportSummarySchema = z.strictObject({
  realm: z.string(),
  realm_created: z.boolean().describe('Whether the import created the realm'),
  prune: z.boolean().describe('Whether what the document\'s sections leave out was deleted'),
  sections: z
    .strictObject({
      settings: SectionSummarySchema.optional(),
      journeys: SectionSummarySchema.optional(),
      scopes: SectionSummarySchema.optional(),
      roles: SectionSummarySchema.optional(),
      groups: SectionSummarySchema.optional(),
      identity_providers: SectionSummarySchema.optional(),
      trusted_issuers: SectionSummarySchema.optional(),
      resources: SectionSummarySchema.optional(),
      clients: SectionSummarySchema.optional(),
      texts: SectionSummarySchema.optional(),
      users: SectionSummarySchema.optional(),
    })
    .describe('What was done to each section the document has; a section it leaves out is left alone'),
  secrets_to_set: z
    .strictObject({
      clients: z.array(z.string()).describe('Confidential clients without a secret: `POST …/clients/{client_id}/secret` gives them one'),
      identity_providers: z.array(z.string()).describe('Identity providers without a secret: `PATCH …/identity-providers/{alias}` with `client_secret` sets it'),
    })
    .describe('What has no secret yet, since a document never carries the realm\'s own secrets'),
});
