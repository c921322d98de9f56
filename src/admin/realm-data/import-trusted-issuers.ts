import { type TrustedIssuerRecord, trustedIssuerProblems } from '../../records/trusted-issuer.js';
import type { TrustedIssuer } from '../../store/trusted-issuers.js';
import { conflict } from '../validate.js';
import type { TrustedIssuerEntry } from './document.js';
import { type PlanContext, SectionPlanner, type SectionPlan, problemsAt, refuseDuplicates } from './plan.js';
import { sameJson } from './same.js';

/** A trusted issuer as the document holds it: its record, without the id of this realm's row. */
export function trustedIssuerEntry(issuer: TrustedIssuer): TrustedIssuerRecord {
  const { id: _id, realm: _realm, createdAt: _createdAt, ...record } = issuer;
  return record;
}

/** How the summary names a trusted issuer: the realm trusts one per kind and issuer. */
const nameOf = (issuer: Pick<TrustedIssuerRecord, 'kind' | 'issuer'>) => `${issuer.kind} ${issuer.issuer}`;

/**
 * Each trusted issuer of the document, known by its kind and issuer, becomes as it describes
 * it (`subject_mapping` left out: `username`). With prune, those it leaves out are deleted.
 */
export async function planTrustedIssuers(ctx: PlanContext, entries: readonly TrustedIssuerEntry[]): Promise<SectionPlan> {
  refuseDuplicates('trusted_issuers', entries, nameOf, 'the same kind and issuer');
  const current = new Map((await ctx.tx.trustedIssuers.list(ctx.realm)).map((issuer) => [nameOf(issuer), issuer]));
  const planner = new SectionPlanner();
  entries.forEach((entry, index) => {
    const record: TrustedIssuerRecord = { ...entry, subject_mapping: entry.subject_mapping ?? 'username' };
    const problems = trustedIssuerProblems(record);
    if (problems.length > 0) throw problemsAt(`trusted_issuers.${index}`, problems.join('; '));
    const name = nameOf(record);
    const existing = current.get(name);
    if (!existing) {
      planner.create(name, async (tx) => {
        if (!(await tx.trustedIssuers.create(ctx.realm, record))) throw conflict(`trusted_issuers.${index}: the realm came to trust this issuer meanwhile`);
      });
    } else if (!sameJson(trustedIssuerEntry(existing), record)) {
      planner.change(name, async (tx) => void (await tx.trustedIssuers.update(ctx.realm, existing.id, record)));
    } else {
      planner.unchanged();
    }
  });
  if (ctx.prune) {
    const named = new Set(entries.map(nameOf));
    for (const [name, issuer] of [...current].filter(([name]) => !named.has(name))) {
      planner.delete(name, async (tx) => void (await tx.trustedIssuers.delete(ctx.realm, issuer.id)));
    }
  }
  return planner.plan();
}
