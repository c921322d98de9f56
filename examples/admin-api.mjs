// The admin API calls that the examples' setup scripts share (examples/setup.mjs,
// examples/mcp/setup.mjs, examples/agents/setup.mjs). Each call that fails ends the script with
// the server's answer; what exists already is updated, so a setup may run again.

/** The admin API of the realmgate at `base`, called with `adminToken`. */
export function adminApi(base, adminToken) {
  if (!adminToken) {
    console.error('setup: set ADMIN_TOKEN to the admin token realmgate was started with (or printed at its first start)');
    process.exit(2);
  }

  const unreachable = (problem) => {
    console.error(`setup: cannot reach realmgate at ${base} (${problem}); start it with npm start`);
    process.exit(1);
  };

  /** One admin call; `allow` lists the failure statuses that mean "already there". */
  async function admin(method, path, body, allow = []) {
    let response;
    try {
      response = await fetch(`${base}/admin${path}`, {
        method,
        headers: { authorization: `Bearer ${adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      unreachable(error.cause?.code ?? error.message);
    }
    const text = await response.text();
    const json = text ? JSON.parse(text) : undefined;
    if (response.ok || allow.includes(response.status)) return { status: response.status, body: json };
    console.error(`setup: ${method} /admin${path} answered ${response.status}: ${json?.error_description ?? text}`);
    process.exit(1);
  }

  return {
    admin,

    /** Waits up to 30 s for realmgate to answer, so that a setup may follow `npm start &` at once. */
    async waitForRealmgate() {
      const deadline = Date.now() + 30_000;
      for (;;) {
        let problem;
        try {
          const response = await fetch(`${base}/healthz`);
          if (response.ok) return;
          problem = `status ${response.status}`;
        } catch (error) {
          problem = error.cause?.code ?? error.message;
        }
        if (Date.now() > deadline) unreachable(problem);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    },

    /** A realm with these settings, created or updated; its issuer. */
    async realm(name, settings) {
      if ((await admin('POST', '/realms', { name, settings }, [409])).status === 409) await admin('PATCH', `/realms/${name}`, { settings });
      return (await admin('GET', `/realms/${name}`)).body.issuer;
    },

    /** A person with this password and these claims, created or updated. */
    async person(realm, username, record) {
      if ((await admin('POST', `/realms/${realm}/users`, { username, ...record }, [409])).status === 409) {
        await admin('PATCH', `/realms/${realm}/users/${encodeURIComponent(username)}`, record);
      }
    },

    /** A client with this record, created, or updated and given a new secret; its secret. */
    async client(realm, record) {
      const created = await admin('POST', `/realms/${realm}/clients`, record, [409]);
      if (created.status !== 409) return created.body.client_secret;
      const { client_id: id, ...metadata } = record;
      await admin('PATCH', `/realms/${realm}/clients/${id}`, metadata);
      return (await admin('POST', `/realms/${realm}/clients/${id}/secret`)).body.client_secret;
    },
  };
}
