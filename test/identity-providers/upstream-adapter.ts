/** A stored model of node-oidc-provider's (a session, a grant, a code, an interaction…). */
type Payload = Record<string, unknown> & { grantId?: string; userCode?: string; uid?: string; consumed?: number };

/**
 * node-oidc-provider's storage for the upstream of the tests: its adapter interface over one Map
 * per provider, entries dropped when they expire. Giving one (rather than letting the provider
 * fall back to its own in-memory adapter) keeps the provider from warning, at every start, that
 * its development adapter is in use.
 */
export function memoryAdapter(): new (model: string) => object {
  const entries = new Map<string, { payload: Payload; expiresAt: number | undefined }>();
  const live = (key: string): Payload | undefined => {
    const entry = entries.get(key);
    if (entry?.expiresAt !== undefined && entry.expiresAt <= Date.now()) entries.delete(key);
    return entries.get(key)?.payload;
  };
  const firstWhere = (model: string, matches: (payload: Payload) => boolean): Payload | undefined => {
    for (const key of entries.keys()) {
      const payload = key.startsWith(`${model}:`) ? live(key) : undefined;
      if (payload && matches(payload)) return payload;
    }
    return undefined;
  };
  return class {
    constructor(private readonly model: string) {}
    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      entries.set(`${this.model}:${id}`, { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : undefined });
    }
    async find(id: string): Promise<Payload | undefined> {
      return live(`${this.model}:${id}`);
    }
    async findByUserCode(userCode: string): Promise<Payload | undefined> {
      return firstWhere(this.model, (payload) => payload.userCode === userCode);
    }
    async findByUid(uid: string): Promise<Payload | undefined> {
      return firstWhere(this.model, (payload) => payload.uid === uid);
    }
    async consume(id: string): Promise<void> {
      const payload = live(`${this.model}:${id}`);
      if (payload) payload.consumed = Math.floor(Date.now() / 1000);
    }
    async destroy(id: string): Promise<void> {
      entries.delete(`${this.model}:${id}`);
    }
    async revokeByGrantId(grantId: string): Promise<void> {
      for (const [key, entry] of entries) if (entry.payload.grantId === grantId) entries.delete(key);
    }
  };
}
