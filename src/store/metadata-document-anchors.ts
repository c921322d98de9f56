import type { Db } from './db.js';

/** The row that stands for a metadata document client in a realm (migrations/024_metadata_document_clients.sql). */
export interface MetadataDocumentAnchor {
  /** The row's internal id, as a string: the client's tokens carry it. */
  readonly internalId: string;
  /** When the client was first used in the realm, in seconds since the epoch. */
  readonly issuedAt: number;
}

/**
 * Anchors of clients described by a metadata document: what the foreign keys of the flows'
 * rows and the internal id of tokens need of a client, and nothing of its record, which is the
 * document (src/clients/metadata-document-clients.ts).
 */
export class MetadataDocumentAnchors {
  constructor(private readonly db: Db) {}

  /**
   * The client's anchor in the realm, made at its first use and touched at each later fetch of
   * its document, so that the cleanup keeps it while it is in use. Undefined when a registered
   * client has this id (which its rules prevent: registered ids hold no "/").
   */
  async touch(realm: string, clientId: string): Promise<MetadataDocumentAnchor | undefined> {
    const result = await this.db.query<{ internal_id: string; created_at: Date }>(
      `INSERT INTO clients (realm, client_id, record, metadata_document) VALUES ($1, $2, '{}'::jsonb, true)
       ON CONFLICT (realm, client_id) DO UPDATE SET updated_at = now() WHERE clients.metadata_document
       RETURNING internal_id::text AS internal_id, created_at`,
      [realm, clientId],
    );
    const row = result.rows[0];
    return row && { internalId: row.internal_id, issuedAt: Math.floor(row.created_at.getTime() / 1000) };
  }
}
