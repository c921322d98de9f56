import type { Session } from '../store/sessions.js';
import type { SelectedJourney } from './journeys/select.js';
import type { JourneyProgress } from '../records/journey.js';
import { type JourneyFacts, endOf, settle } from './journeys/walk.js';

/**
 * What a browser's session is worth for a new request (CONTRACT.md §8): it stands for the
 * request (`fits`), or the person completes the nodes it has not passed (`step-up`, the
 * journey's progress at the first of them).
 */
export type SessionFit =
  | { readonly kind: 'fits'; readonly session: Session }
  | { readonly kind: 'step-up'; readonly session: Session; readonly progress: JourneyProgress };

/**
 * Walks the request's journey for the session's person: its decided nodes (a `condition` on the
 * request's client among them) decided afresh through `facts`, its nodes of the person's passed
 * when the session passed them. Undefined when the journey denies the person (or cannot run):
 * the session stands for nothing, and a sign-in starts from the beginning.
 */
export async function sessionFit(selected: SelectedJourney, session: Session, facts: JourneyFacts): Promise<SessionFit | undefined> {
  const { journey } = selected;
  const progress = await settle(
    journey,
    { journey: selected.name, node: journey.start, userId: session.userId, amr: session.amr, nodes: session.nodes, stepUpOf: session.sid },
    facts,
  );
  const end = endOf(journey, progress);
  if (end === 'done') return { kind: 'fits', session };
  return end === 'deny' ? undefined : { kind: 'step-up', session, progress };
}
