import { printJson, printLines } from './output.js';

/** The server's answer as JSON with --json, else as the text made of it for people. */
export function print<T>(options: { json?: boolean }, answer: T, forPeople: (answer: T) => string): void {
  if (options.json) printJson(answer);
  else printLines(forPeople(answer));
}
