#!/usr/bin/env node
/** The entry point of `npm start`; `realmgate start` (src/cli/) runs the same. */
import { start } from './start.js';

await start();
