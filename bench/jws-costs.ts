import { generateKeyPairSync, sign } from 'node:crypto';
import { type JWK, SignJWT, exportJWK, importJWK, jwtVerify } from 'jose';
import { derToJose } from '../src/tokens/ecdsa-signature.js';
import { importPublicKey, splitJws, verifiedPayload } from '../src/tokens/own-jws.js';

/**
 * `npx tsx bench/jws-costs.ts [rounds]`: CPU microseconds (user + system, every thread of the
 * process, `process.cpuUsage`) of one ES256 access token's signature and of its verification,
 * each the way realmgate made it before and the way it makes it now, alternating, 50 at a time
 * for the asynchronous ones (as under load). On a shared machine the absolute figures move with
 * its load: compare the lines of one run.
 */

const BATCH = 50;
const COUNT = 2000;

async function cpuMicroseconds(operation: () => unknown): Promise<number> {
  for (let i = 0; i < 300; i++) await operation(); // warm-up
  const started = process.cpuUsage();
  for (let done = 0; done < COUNT; done += BATCH) await Promise.all(Array.from({ length: BATCH }, operation));
  const used = process.cpuUsage(started);
  return (used.user + used.system) / COUNT;
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 3);
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = (await exportJWK(publicKey)) as JWK;
  const now = Math.floor(Date.now() / 1000);
  const claims = { iss: 'https://issuer.example', sub: 'client', client_id: 'client', scope: 'api', jti: 'jti', grant_id: 'grant' };
  const token = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'kid', typ: 'at+jwt' }).setIssuedAt(now).setExpirationTime(now + 600).sign(privateKey);
  const input = Buffer.from(token.slice(0, token.lastIndexOf('.')));
  const cryptoKey = await importJWK(jwk, 'ES256');
  const keyObject = importPublicKey(jwk);
  const options = { issuer: claims.iss, typ: 'at+jwt', algorithms: ['ES256'], requiredClaims: ['exp', 'iat', 'jti', 'sub', 'client_id'] };

  const operations: Array<[string, () => unknown]> = [
    ['sign, node:crypto with { key, dsaEncoding } (before)', () => sign('sha256', input, { key: privateKey, dsaEncoding: 'ieee-p1363' })],
    ['sign, node:crypto with the bare KeyObject, DER converted (now)', () => derToJose(sign('sha256', input, privateKey))],
    ['verify, jose jwtVerify with a CryptoKey (before)', () => jwtVerify(token, cryptoKey, options)],
    ['verify, node:crypto with the bare KeyObject (now)', () => verifiedPayload(splitJws(token)!, keyObject, 'ES256')],
  ];
  for (let round = 1; round <= rounds; round++) {
    for (const [name, operation] of operations) {
      process.stdout.write(`round ${round}  ${name.padEnd(64)} ${(await cpuMicroseconds(operation)).toFixed(1).padStart(7)} µs\n`);
    }
  }
}

await main();
