import type { en } from './en.js';

type English = typeof en;

declare module '../../records/text.js' {
  /**
   * The texts of one language: every key of the English catalogue, with the same parameters. A
   * catalogue declared as `Messages` that misses a key, or adds one, does not compile.
   */
  interface Messages extends English {}
}

export type { Messages, Text } from '../../records/text.js';
