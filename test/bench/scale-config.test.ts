import { afterEach, describe, expect, it } from 'vitest';
import { readConfig } from '../../bench/scale/config.js';

/** SCALE_PG_SHARED_BUFFERS goes on the command line of the cluster the tokens part starts (bench/scale/own-cluster.ts). */
describe("the scale bench's SCALE_PG_SHARED_BUFFERS", () => {
  const saved = process.env.SCALE_PG_SHARED_BUFFERS;
  afterEach(() => {
    if (saved === undefined) delete process.env.SCALE_PG_SHARED_BUFFERS;
    else process.env.SCALE_PG_SHARED_BUFFERS = saved;
  });
  const read = (value: string | undefined) => {
    if (value === undefined) delete process.env.SCALE_PG_SHARED_BUFFERS;
    else process.env.SCALE_PG_SHARED_BUFFERS = value;
    return readConfig('/tmp/unused.json').tokensSharedBuffers;
  };

  it('leaves the tokens part on the server of DATABASE_URL when unset or empty', () => {
    expect(read(undefined)).toBeUndefined();
    expect(read('')).toBeUndefined();
  });

  it('takes a size PostgreSQL reads, or default', () => {
    expect(read('4GB')).toBe('4GB');
    expect(read('512MB')).toBe('512MB');
    expect(read('131072')).toBe('131072');
    expect(read('default')).toBe('default');
  });

  it('refuses anything else, which would reach the postgres command line', () => {
    for (const value of ['4 GB', '4GB -c fsync=off', '4gb', 'lots', '-1']) expect(() => read(value)).toThrow(/SCALE_PG_SHARED_BUFFERS/);
  });
});
