import { LRUCache } from 'lru-cache';
import type { RealmSettings } from '../records/realm-settings.js';
import type { RequestRealm } from '../records/realm.js';
import type { Client, ClientStore } from '../store/clients.js';
import type { MetadataDocumentAnchor, MetadataDocumentAnchors } from '../store/metadata-document-anchors.js';
import { MetadataDocumentError, metadataDocumentRecord } from './metadata-document.js';
import type { FetchedDocument, MetadataDocumentFetcher } from './metadata-document-fetcher.js';
import { clientIdUrlProblem, isClientIdUrl } from './metadata-document-url.js';

/** A client made of a document for a realm, while the document and the realm's settings are those it was made of. */
interface Entry {
  readonly document: FetchedDocument;
  readonly settings: RealmSettings;
  readonly anchor: MetadataDocumentAnchor;
  readonly client: Client;
}

/**
 * Clients whose `client_id` is an https URL serving their metadata document
 * (draft-ietf-oauth-client-id-metadata-document), in realms with `client_id_metadata_documents`.
 *
 * Such a client is not registered: its record is made in memory from its document, which is
 * fetched again when its caching headers say (src/clients/metadata-document-fetcher.ts), and is
 * the same on every instance that fetched the same document. The database holds only what the
 * flows must reference: consents, codes, transactions and pushed requests name the client_id
 * URL with a foreign key to clients, and tokens carry the client's internal id
 * (migrations/008_token_client_check_on_read.sql), as for any client; so each such client has
 * an anchor row in clients, with an empty record (src/store/metadata-document-anchors.ts,
 * migrations/024_metadata_document_clients.sql). The anchor gives the client its internal id,
 * which is what makes its tokens live; the cleanup deletes anchors that nothing needs any more.
 */
export class MetadataDocumentClients {
  private readonly entries: LRUCache<string, Entry>;

  constructor(
    private readonly fetcher: MetadataDocumentFetcher,
    private readonly anchors: MetadataDocumentAnchors,
    maxEntries = 10_000,
  ) {
    this.entries = new LRUCache({ max: maxEntries });
  }

  /** The client the URL describes in the realm; a MetadataDocumentError says why there is none. */
  async client(realm: RequestRealm, clientId: string): Promise<Client> {
    const key = `${realm.name} ${clientId}`;
    const entry = this.entries.get(key);
    // A URL with an entry was checked when the entry was made.
    const problem = entry ? undefined : clientIdUrlProblem(clientId);
    if (problem) throw new MetadataDocumentError(problem);
    const document = await this.fetcher.document(clientId);
    if (entry && entry.document === document && entry.settings === realm.settings) return entry.client;

    let metadata;
    try {
      metadata = metadataDocumentRecord(document.content, clientId, realm.settings);
    } catch (error) {
      if (error instanceof MetadataDocumentError) this.fetcher.forget(clientId, document, error);
      throw error;
    }
    // Touched once per fetch of the document, so that the cleanup leaves the anchor of a client in use.
    const anchor = entry?.document === document ? entry.anchor : await this.anchors.touch(realm.name, clientId);
    if (!anchor) throw new MetadataDocumentError('the client_id is a registered client\'s');
    const client: Client = Object.freeze({
      ...metadata,
      client_id: clientId,
      realm: realm.name,
      secretHash: undefined,
      issuedAt: anchor.issuedAt,
      internalId: anchor.internalId,
    });
    this.entries.set(key, { document, settings: realm.settings, anchor, client });
    return client;
  }
}

/**
 * Finds the client a request names: a metadata document client when the realm takes them and
 * the client_id is an https URL, else a registered client of the realm (src/store/clients.ts).
 * With the realm's setting off, a URL is an unknown client like any other id.
 */
export class ClientDirectory {
  constructor(
    private readonly registered: Pick<ClientStore, 'get'>,
    private readonly documents: MetadataDocumentClients,
  ) {}

  /** Undefined for an unknown client; a MetadataDocumentError when a client_id URL cannot serve as a client. */
  get(realm: RequestRealm, clientId: string): Promise<Client | undefined> {
    if (realm.settings.client_id_metadata_documents && isClientIdUrl(clientId)) return this.documents.client(realm, clientId);
    return this.registered.get(realm.name, clientId);
  }
}
