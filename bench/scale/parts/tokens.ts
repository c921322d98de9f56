import type { ScaleConfig } from '../config.js';
import type { PartResult } from '../report.js';
export async function tokensPart(_config: ScaleConfig): Promise<PartResult> { throw new Error('todo'); }
