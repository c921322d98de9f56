#!/usr/bin/env node
/**
 * The entry point. Loading the application's modules takes a moment; a SIGTERM or SIGINT that
 * comes meanwhile is caught here and handed on, so that the process still stops cleanly
 * (exit 0) instead of being killed by the signal.
 */
let signalled: string | undefined;
const early = (signal: NodeJS.Signals) => {
  signalled ??= signal;
};
process.on('SIGTERM', early);
process.on('SIGINT', early);

const { run } = await import('./process.js');
process.off('SIGTERM', early);
process.off('SIGINT', early);
run(signalled);
