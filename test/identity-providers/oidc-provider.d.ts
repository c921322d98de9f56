// The parts of node-oidc-provider (a dev dependency without types) that the upstream of the
// identity provider tests uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, Server, ServerResponse } from 'node:http';

  interface KoaContext {
    path: string;
    method: string;
    req: IncomingMessage;
    res: ServerResponse;
    status: number;
    type: string;
    body: unknown;
    redirect(url: string): void;
    throw(status: number, message?: string): never;
  }

  interface Interaction {
    uid: string;
    params: Record<string, string>;
    prompt: { name: string; details: { missingOIDCScope?: string[]; missingOIDCClaims?: string[] } };
    grantId?: string;
    session?: { accountId: string };
  }

  interface Grant {
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    save(): Promise<string>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    Grant: { new (input: { accountId: string; clientId: string }): Grant; find(id: string): Promise<Grant | undefined> };
    use(middleware: (ctx: KoaContext, next: () => Promise<void>) => Promise<void>): void;
    listen(port: number, host: string): Server;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionResult(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<string>;
  }
}
