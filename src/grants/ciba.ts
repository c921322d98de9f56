import { CIBA_GRANT } from '../records/client.js';
import type { GrantHandler } from './grant-handler.js';
import { type PolledGrantDeps, polledGrant } from './poll.js';

/** CIBA Core §10.1: the client polls with the auth_req_id of its backchannel request while the person answers on the approval page. */
export function cibaGrant(deps: PolledGrantDeps): GrantHandler<'auth_req_id'> {
  return polledGrant(deps, { type: CIBA_GRANT, kind: 'ciba', parameter: 'auth_req_id', name: 'auth_req_id' });
}
