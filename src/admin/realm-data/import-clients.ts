import { type ClientMetadata, usesClientSecret } from '../../records/client.js';
import { ClientRecordError, newClientMetadata } from '../../records/client-changes.js';
import { scopeNames } from '../../records/scope.js';
import type { Client } from '../../store/clients.js';
import type { StoreTransaction } from '../../store/index.js';
import { clientView } from '../clients.js';
import { conflict } from '../validate.js';
import { type SectorIdentifierFetcher, sectorIdentifierToCheck } from '../../clients/sector-identifier.js';
import type { ClientStore } from '../../store/clients.js';
import type { ClientEntry } from './document.js';
import { type PlanContext, SectionPlanner, type SectionPlan, invalidAt, problemsAt, refuseDuplicates } from './plan.js';
import { sameJson } from './same.js';

/** A client as the document holds it: its record, without its secret or when it was made. */
export function clientEntry(client: Client): ClientEntry {
  const { client_id_issued_at: _issuedAt, ...entry } = clientView(client);
  return entry;
}

/** A client of the realm once the import is applied: what the references are checked against. */
export interface FinalClient {
  readonly clientId: string;
  readonly metadata: ClientMetadata;
  /** Where the document has it (`clients.3`); none for a client it leaves alone. */
  readonly path: string | undefined;
}

function metadataOf(entry: ClientEntry, path: string): ClientMetadata {
  const { client_id: _clientId, ...input } = entry;
  try {
    return newClientMetadata(input);
  } catch (error) {
    if (error instanceof ClientRecordError) throw problemsAt(path, error.message);
    throw error;
  }
}

/**
 * Each client of the document becomes as it describes it, the fields it leaves out at their
 * defaults (as a client created with that body). Secrets are never imported: a new client that
 * authenticates with one has none until an admin rotates it in (`secretsToSet`), and a client
 * that no longer uses one loses it. With prune, the clients the document leaves out are deleted.
 */
export async function planClients(
  ctx: PlanContext,
  entries: readonly ClientEntry[],
): Promise<{ plan: SectionPlan; clients: FinalClient[]; secretsToSet: string[] }> {
  refuseDuplicates('clients', entries, (entry) => entry.client_id, 'the same client_id');
  const current = new Map((await ctx.tx.clients.list(ctx.realm)).map((client) => [client.client_id, client]));
  const planner = new SectionPlanner();
  const secretsToSet: string[] = [];
  const final = new Map<string, FinalClient>([...current.values()].map((client) => [client.client_id, asItIs(client)]));
  entries.forEach((entry, index) => {
    const path = `clients.${index}`;
    const metadata = metadataOf(entry, path);
    const clientId = entry.client_id;
    const existing = current.get(clientId);
    final.set(clientId, { clientId, metadata, path });
    const withSecret = usesClientSecret(metadata.token_endpoint_auth_method);
    if (withSecret && !existing?.secretHash) secretsToSet.push(clientId);
    if (!existing) {
      planner.create(clientId, async (tx) => {
        if (!(await tx.clients.create(ctx.realm, clientId, metadata, undefined))) throw conflict(`${path}: a client with this client_id was created meanwhile`);
      });
    } else if (!sameJson(metadataOfClient(existing), metadata)) {
      planner.change(clientId, async (tx) => void (await tx.clients.update(ctx.realm, clientId, () => ({ metadata, secret: withSecret ? { keep: true } : { hash: null } }))));
    } else {
      planner.unchanged();
    }
  });
  if (ctx.prune) {
    const named = new Set(entries.map((entry) => entry.client_id));
    for (const clientId of [...current.keys()].filter((clientId) => !named.has(clientId))) {
      final.delete(clientId);
      planner.delete(clientId, async (tx: StoreTransaction) => void (await tx.clients.delete(ctx.realm, clientId)));
    }
  }
  return { plan: planner.plan(), clients: [...final.values()], secretsToSet };
}

/** The realm's clients as they are, for a document without a `clients` section. */
export async function clientsAsTheyAre(tx: StoreTransaction, realm: string): Promise<FinalClient[]> {
  return (await tx.clients.list(realm)).map(asItIs);
}

const asItIs = (client: Client): FinalClient => ({ clientId: client.client_id, metadata: metadataOfClient(client), path: undefined });

function metadataOfClient(client: Client): ClientMetadata {
  const { client_id: _clientId, ...metadata } = clientEntry(client);
  return metadata as ClientMetadata;
}

/** The scopes a client's record names that the realm will not have. */
export const missingScopes = (client: FinalClient, scopes: ReadonlySet<string>): string[] =>
  scopeNames(client.metadata.scope).filter((name) => !scopes.has(name));

/**
 * OpenID Connect Registration §5: each `sector_identifier_uri` the document sets, or whose client's
 * redirect URIs it changes, is fetched and must list them, as when an admin sets it. Before the
 * import's transaction, which no fetch holds open.
 */
export async function checkSectorIdentifiers(
  deps: { clients: Pick<ClientStore, 'get'>; sectorIdentifiers: Pick<SectorIdentifierFetcher, 'problem'> },
  realm: string,
  entries: readonly ClientEntry[],
): Promise<void> {
  for (const [index, entry] of entries.entries()) {
    const after = { sector_identifier_uri: entry.sector_identifier_uri ?? undefined, redirect_uris: entry.redirect_uris ?? [] };
    const uri = sectorIdentifierToCheck(after, after.sector_identifier_uri === undefined ? undefined : await deps.clients.get(realm, entry.client_id));
    const problem = uri === undefined ? undefined : await deps.sectorIdentifiers.problem(uri, after.redirect_uris);
    if (problem) throw invalidAt(`clients.${index}.sector_identifier_uri`, problem);
  }
}
