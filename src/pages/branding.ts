import { clientNameIn } from '../records/client-names.js';
import type { Locale } from '../records/locales.js';
import type { RealmSettings } from '../records/realm-settings.js';
import { textColourOn } from './contrast.js';

/** The colour of the main buttons of a realm that names none (6.2:1 with white text). */
export const DEFAULT_PRIMARY_COLOUR = '#2557d6';

/** How a realm's pages present it (CONTRACT.md §10 "Branding"). */
export interface RealmBrand {
  /** `display_name`, else the realm's name. */
  readonly name: string;
  /** An https image, shown above the page's title. */
  readonly logoUri: string | undefined;
  /** The main buttons' colour and the text colour that contrasts most with it. */
  readonly primary: { readonly background: string; readonly text: string };
}

/** The application a sign-in or consent page is for: its `client_name` (else its id), and its logo when it registered one. */
export interface ClientBrand {
  readonly name: string;
  readonly logoUri: string | undefined;
  /** The host of its client_id URL, when a metadata document describes it rather than a registration. */
  readonly host?: string;
}

/** The realm's `display_name` setting when it has one, else its name: how pages and mails name it. */
export function realmLabel(realm: { readonly name: string; readonly settings: object }): string {
  const displayName = (realm.settings as { display_name?: unknown }).display_name;
  return typeof displayName === 'string' && displayName.trim() !== '' ? displayName.trim() : realm.name;
}

export function realmBrand(realm: { readonly name: string; readonly settings: Pick<RealmSettings, 'display_name' | 'logo_uri' | 'primary_color'> }): RealmBrand {
  const background = realm.settings.primary_color?.toLowerCase() ?? DEFAULT_PRIMARY_COLOUR;
  return {
    name: realmLabel(realm),
    logoUri: realm.settings.logo_uri ?? undefined,
    primary: { background, text: textColourOn(background) },
  };
}

/** `describedByDocument`: the client is made of the metadata document at its client_id URL, not registered (src/clients/metadata-document-url.ts). */
export function clientBrand(
  client: { readonly client_id: string; readonly client_name: string; readonly client_names?: Readonly<Record<string, string>> | undefined; readonly logo_uri?: string | undefined },
  describedByDocument: boolean,
  locale?: Locale,
): ClientBrand {
  if (describedByDocument) {
    // A client that describes itself chooses its name: the host of its URL goes with it, and no
    // image of its choosing goes on the realm's pages (draft-ietf-oauth-client-id-metadata-document §6.4, §6.7).
    const host = new URL(client.client_id).host;
    return { name: client.client_name ? `${client.client_name} (${host})` : host, logoUri: undefined, host };
  }
  return { name: clientNameIn(client, locale), logoUri: client.logo_uri || undefined };
}
