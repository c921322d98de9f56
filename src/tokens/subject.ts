import { createCipheriv, createDecipheriv, createHmac } from 'node:crypto';
import type { ClientMetadata } from '../records/client.js';
import type { KeyEncryption } from './key-encryption.js';

/** What of a client decides the `sub` it sees: its realm, subject type and sector. */
export type SubjectClient = Pick<ClientMetadata, 'subject_type' | 'sector_identifier_uri' | 'redirect_uris'> & {
  readonly realm: string;
  readonly client_id: string;
};

/**
 * OpenID Connect Core §8.1: the sector of a pairwise client is the host of its
 * `sector_identifier_uri`, else the one host its redirect URIs share (src/records/client.ts
 * refuses a pairwise client without either). A record that has neither (none is accepted) is its
 * own sector, so that it never falls back to another's.
 */
export function sectorOf(client: Pick<SubjectClient, 'sector_identifier_uri' | 'redirect_uris' | 'client_id'>): string {
  const uri = client.sector_identifier_uri ?? client.redirect_uris[0];
  return uri === undefined ? `client ${client.client_id}` : new URL(uri).hostname;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * The `sub` each client sees of a person (OpenID Connect Core §8). A public client sees the
 * person's own id (the local subject); a pairwise client sees HMAC-SHA256(realm, sector,
 * local subject) under a key derived from MASTER_KEY: one value per person and sector, stable
 * across instances and restarts, that no one without MASTER_KEY can compute, reverse or link to
 * the person's value at another sector. Every `sub` that reaches a client is made here.
 *
 * A stateless access token of a pairwise client carries its person sealed (`seal`), for this
 * server alone to read back: the token's `sub` cannot be reversed, and the local subject is
 * never shown to the client.
 */
export class Subjects {
  private readonly pairwiseKey: Buffer;
  private readonly sealKey: Buffer;
  private readonly sealIvKey: Buffer;

  constructor(encryption: Pick<KeyEncryption, 'deriveKey'>) {
    this.pairwiseKey = encryption.deriveKey('pairwise subjects');
    this.sealKey = encryption.deriveKey('sealed subjects');
    this.sealIvKey = encryption.deriveKey('sealed subjects iv');
  }

  /** The `sub` of the person `localSubject` for `client`. */
  for(client: SubjectClient, localSubject: string): string {
    if (client.subject_type !== 'pairwise') return localSubject;
    return createHmac('sha256', this.pairwiseKey).update(`${client.realm}\0${sectorOf(client)}\0${localSubject}`).digest('base64url');
  }

  /** Whether `sub`, as `client` presents it back (an `id_token_hint`, an asked `sub`), names the person `localSubject`: recomputed, never reversed. */
  names(client: SubjectClient, sub: string, localSubject: string): boolean {
    return this.for(client, localSubject) === sub;
  }

  /** How a pairwise client's JWT access token names its person (src/tokens/jwt-access-token.ts); undefined for a public client's, or one without a person. */
  pairwiseJwt(client: SubjectClient, userId: string | undefined): { sub: string; sealed: string } | undefined {
    if (userId === undefined || client.subject_type !== 'pairwise') return undefined;
    return { sub: this.for(client, userId), sealed: this.seal(client, userId) };
  }

  /**
   * The person of a pairwise client's stateless token, sealed with AES-256-GCM for the realm and
   * client. Its IV is an HMAC of what it seals (a synthetic IV, as AES-SIV makes one): the same
   * person gives the same value, which tells the client no more than the `sub` beside it does,
   * and no two different values ever share an IV, however many tokens are signed.
   */
  seal(client: SubjectClient, localSubject: string): string {
    const context = `${client.realm}\0${client.client_id}`;
    const iv = createHmac('sha256', this.sealIvKey).update(`${context}\0${localSubject}`).digest().subarray(0, IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.sealKey, iv).setAAD(Buffer.from(context));
    const ciphertext = Buffer.concat([cipher.update(localSubject, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url');
  }

  /** What `seal` sealed for this realm and client; undefined for anything else. */
  open(realm: string, clientId: string, sealed: string): string | undefined {
    const bytes = Buffer.from(sealed, 'base64url');
    if (bytes.length <= IV_BYTES + TAG_BYTES) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.sealKey, bytes.subarray(0, IV_BYTES))
        .setAAD(Buffer.from(`${realm}\0${clientId}`))
        .setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}
