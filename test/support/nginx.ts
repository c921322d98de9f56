import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort } from './app.js';
import { type RunningServer, ServerProcess, serverEnv, spawnServer, waitForStatus } from './process.js';

/**
 * nginx (Debian's package, which .ci/run installs) as the load balancer in front of several
 * realmgate processes: run by the test in the foreground, from a configuration in a temporary
 * directory, on a free port of 127.0.0.1, never as the system's daemon.
 */
export const NGINX = '/usr/sbin/nginx';

/** Why nginx tests cannot run here; undefined when they can. */
export function nginxSkipReason(): string | undefined {
  return existsSync(NGINX) ? undefined : `no nginx at ${NGINX} (apt-get install nginx)`;
}

/**
 * What docs/operations.md "nginx in front" recommends, with the test's ports and paths: round
 * robin; a request turned away unprocessed (a refused or reset connection, a 503) goes to the
 * next instance, POST included (`non_idempotent`: the README says why that is safe here);
 * no instance is ever marked failed (`max_fails=0`), so that a store outage, when every
 * instance answers 503, reaches clients as that 503 and not as nginx's 502 "no live
 * upstreams". `X-Upstream` names the instance(s) that served each request.
 */
export function nginxConfig(options: { port: number; upstreams: readonly string[]; dir: string }): string {
  const { port, upstreams, dir } = options;
  const asRoot = process.getuid?.() === 0;
  return `${asRoot ? 'user root;\n' : ''}worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;

  upstream realmgate {
${upstreams.map((address) => `    server ${address} max_fails=0;`).join('\n')}
  }

  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://realmgate;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_next_upstream error http_503 non_idempotent;
      add_header X-Upstream $upstream_addr always;
    }
  }
}
`;
}

export interface Nginx {
  port: number;
  baseUrl: string;
  process: ServerProcess;
  /** nginx's error log: what it says about the upstreams. */
  errorLog(): string;
  stop(): Promise<void>;
}

/** Starts nginx on a free port (or `port`) in front of `upstreams` ("127.0.0.1:port"), and waits until it accepts. */
export async function startNginx(upstreams: readonly string[], options: { port?: number } = {}): Promise<Nginx> {
  const port = options.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'realmgate-nginx-'));
  for (const sub of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, sub));
  writeFileSync(join(dir, 'nginx.conf'), nginxConfig({ port, upstreams, dir }));
  // -e: where nginx writes before it has read the configuration's error_log.
  const child = new ServerProcess(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log'), '-g', 'daemon off;'], process.env);
  const errorLog = () => {
    try {
      return readFileSync(join(dir, 'error.log'), 'utf8');
    } catch {
      return '';
    }
  };
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exit || Date.now() > deadline) {
      await child.stop(1_000);
      throw new Error(`nginx did not start: ${child.output}${errorLog()}`);
    }
    await delay(25);
  }
  return {
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    process: child,
    errorLog,
    async stop() {
      await child.stop(5_000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * `count` realmgate processes behind one nginx, as CONTRACT.md §1 runs many instances: one
 * BASE_URL (nginx's address), TRUST_PROXY, and `vars` (the store's, ADMIN_TOKEN…). They are
 * spawned at the same instant and each is waited for on its own port; the servers returned
 * address each instance directly.
 */
export async function startBehindNginx(
  count: number,
  vars: Record<string, string>,
  options: { timeoutMs?: number } = {},
): Promise<{ nginx: Nginx; instances: RunningServer[] }> {
  const ports: number[] = [];
  while (ports.length < count) {
    const port = await freePort();
    if (!ports.includes(port)) ports.push(port);
  }
  const nginx = await startNginx(ports.map((port) => `127.0.0.1:${port}`));
  const processes = ports.map((port) =>
    spawnServer(serverEnv({ HOST: '127.0.0.1', PORT: String(port), BASE_URL: nginx.baseUrl, TRUST_PROXY: '127.0.0.1', ...vars })),
  );
  const instances = processes.map((process, index) => ({ process, port: ports[index]!, baseUrl: `http://127.0.0.1:${ports[index]}` }));
  try {
    await Promise.all(
      instances.map((instance) =>
        waitForStatus(instance.process, `${instance.baseUrl}/healthz`, 200, instance.process.spawnedAt + (options.timeoutMs ?? 30_000)),
      ),
    );
  } catch (error) {
    await Promise.all([nginx.stop(), ...processes.map((process) => process.stop(5_000))]);
    throw error;
  }
  return { nginx, instances };
}
