import { DEVICE_CODE_GRANT } from '../records/client.js';
import type { GrantHandler } from './grant-handler.js';
import { type PolledGrantDeps, polledGrant } from './poll.js';

/** RFC 8628 §3.4: the device polls with its device code while the person answers on the device page. */
export function deviceCodeGrant(deps: PolledGrantDeps): GrantHandler<'device_code'> {
  return polledGrant(deps, { type: DEVICE_CODE_GRANT, kind: 'device', parameter: 'device_code', name: 'device code' });
}
