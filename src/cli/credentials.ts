import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { z } from 'zod';
import { CliError } from './errors.js';
import { printable } from './output.js';

/**
 * What `realmgate login` keeps (CONTRACT.md §14): the server it signed in to, and the tokens of
 * the `root` realm for its admin resource. The file is the person's: mode 0600, in a directory
 * of mode 0700, written whole (a temporary file renamed over it) so that no reader sees half.
 */
const CredentialsSchema = z.object({
  /** The server's address as `serverUrl` normalises it; the tokens go to it alone. */
  server: z.string(),
  client_id: z.string(),
  /** `{BASE_URL}/admin`: the audience of the access token. */
  resource: z.string(),
  access_token: z.string(),
  /** Seconds since the epoch. */
  expires_at: z.number(),
  refresh_token: z.string().optional(),
});
export type Credentials = z.infer<typeof CredentialsSchema>;

/** `$XDG_CONFIG_HOME/realmgate`, `~/.config/realmgate` when that is unset or not absolute (XDG Base Directory). */
export function credentialsDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'realmgate');
}

export const credentialsPath = (): string => join(credentialsDir(), 'credentials.json');

/** The stored credentials; undefined when there are none. A file others may read is refused, as ssh refuses such a key. */
export function readCredentials(path = credentialsPath()): Credentials | undefined {
  let text: string;
  try {
    const mode = statSync(path).mode & 0o777;
    if ((mode & 0o077) !== 0) {
      throw new CliError(`${printable(path)} may be read by others (mode ${mode.toString(8)}): run chmod 600 on it, or realmgate logout and login again`);
    }
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const result = CredentialsSchema.safeParse(parsed);
  if (!result.success) throw new CliError(`${printable(path)} is not a credentials file of realmgate login: delete it and login again`);
  return result.data;
}

export function writeCredentials(credentials: Credentials, path = credentialsPath()): void {
  const dir = join(path, '..');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  // 'wx': a new file, created with mode 0600 (the umask can only narrow it).
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(credentials, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
}

export function deleteCredentials(path = credentialsPath()): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

const LOCK_WAIT_MS = 15_000;
/** A lock older than this was left by a process that died while refreshing. */
const STALE_LOCK_MS = 60_000;

/**
 * Runs `work` while holding `credentials.json.lock`, so that two commands refreshing at once do
 * not both spend the same refresh token: with rotation, the second use of a spent one would
 * end the sign-in (RFC 9700 §4.14.2). The one that waited then reads what the other wrote.
 */
export async function withCredentialsLock<T>(work: () => Promise<T>, path = credentialsPath()): Promise<T> {
  const lock = `${path}.lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx', 0o600));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (lockAge(lock) > STALE_LOCK_MS) deleteCredentials(lock);
      else if (Date.now() > deadline) throw new CliError(`${printable(lock)} is held by another realmgate command; delete it if none runs`);
      else await delay(100);
    }
  }
  try {
    return await work();
  } finally {
    deleteCredentials(lock);
  }
}

function lockAge(lock: string): number {
  try {
    return Date.now() - statSync(lock).mtimeMs;
  } catch {
    return 0;
  }
}
