/** The outbox kind of a back-channel logout (src/outbox/backchannel-logout.ts sends it). */
export const BACKCHANNEL_LOGOUT = 'backchannel_logout';

/**
 * The statement that ends the sessions `condition` finds (written over the statement's own
 * parameters), answering their sids and clients; the same statement queues, for each client a session gave
 * a code or tokens to (`sessions.clients`) that has a `backchannel_logout_uri`, the delivery of
 * a logout token (OpenID Connect Back-Channel Logout 1.0 §2.5, CONTRACT.md §12). Queued with the
 * end, committed with it: no end is told twice, none is lost with the instance, and a session
 * whose clients have no such URI costs nothing more. Its `jti` is drawn here, so that every
 * retry carries the same one; `sub` is the person's id, and `subject` what of the client decides
 * the `sub` it is sent (src/tokens/subject.ts).
 */
export const endSessionsStatement = (condition: string): string => `
  WITH ended AS (DELETE FROM sessions WHERE ${condition} RETURNING realm, user_id, sid, clients),
  queued AS (${logoutsQueuedFor('ended')})
  SELECT sid, clients FROM ended`;

/**
 * The INSERT, for a statement's CTE, that queues the logout tokens of the sessions that CTE
 * `ended` deleted (RETURNING realm, user_id, sid, clients): for a statement that ends a session
 * among other work, as a sign-in that replaces the browser's previous session.
 */
export const logoutsQueuedFor = (ended: string): string => `
    INSERT INTO outbox (kind, realm, target, payload)
    SELECT '${BACKCHANNEL_LOGOUT}', e.realm, c.record->>'backchannel_logout_uri',
           jsonb_build_object('client_id', c.client_id, 'sub', e.user_id, 'sid', e.sid, 'jti', gen_random_uuid(),
                              'alg', coalesce(c.record->>'id_token_signed_response_alg', 'RS256'),
                              'subject', jsonb_build_object('subject_type', c.record->'subject_type', 'sector_identifier_uri', c.record->'sector_identifier_uri',
                                                            'redirect_uris', c.record->'redirect_uris'))
      FROM ${ended} e CROSS JOIN LATERAL unnest(e.clients) AS r(client_id)
      JOIN clients c ON c.realm = e.realm AND c.client_id = r.client_id
     WHERE c.record->>'backchannel_logout_uri' IS NOT NULL`;
