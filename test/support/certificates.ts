import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A certificate and its private key, PEM. */
export interface Pair {
  cert: string;
  key: string;
}

/** A self-signed P-256 certificate made with the openssl CLI in `dir`, with its extensions. */
export function selfSigned(dir: string, name: string, subject: string, extensions: string[]): Pair {
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2', '-keyout', `${name}.key`, '-out', `${name}.pem`, '-subj', subject,
      ...extensions.flatMap((extension) => ['-addext', extension])],
    { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  return { cert: readFileSync(join(dir, `${name}.pem`), 'utf8'), key: readFileSync(join(dir, `${name}.key`), 'utf8') };
}
