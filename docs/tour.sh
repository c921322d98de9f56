#!/usr/bin/env bash
# The five-minute tour of README.md, as one script: start realmgate on the embedded store, create
# a realm, a scope, a user and a client through the admin API, get a client-credentials token and
# introspect it, sign the user in with the authorization code flow and PKCE as a browser would
# (curl with a cookie jar, posting each page's form back), call UserInfo, and stop the server.
#
# Run it from a checkout after `npm install` (which builds dist/):   bash docs/tour.sh
# PORT chooses the port (default 9000). The store and the server's log live in a temporary
# directory, removed at the end. test/docs/tour.test.ts runs this script on every test run.
set -euo pipefail
cd "$(dirname "$0")/.."

# --- Quick start: the server, on the embedded store, and a wait until it is ready.
export PORT=${PORT:-9000}
export ADMIN_TOKEN=$(node -e "console.log(require('crypto').randomBytes(32).toString('base64url'))")
ADMIN_PASSWORD=$(node -e "console.log(require('crypto').randomBytes(18).toString('base64url'))")
echo "the first administrator: admin, password $ADMIN_PASSWORD"
WORK=$(mktemp -d)
ADMIN_USER=admin ADMIN_PASSWORD=$ADMIN_PASSWORD DATA_DIR=$WORK/data node dist/server.js > "$WORK/realmgate.log" 2>&1 &
SERVER=$!
# On any failure: stop the server and show its log.
trap 'status=$?; kill "$SERVER" 2>/dev/null && wait "$SERVER"; [ "$status" = 0 ] || cat "$WORK/realmgate.log" >&2; rm -rf "$WORK"' EXIT
until curl -fs "localhost:$PORT/readyz"; do kill -0 "$SERVER" || break; sleep 0.5; done; echo

# --- The admin API: a realm, a scope, a user, and a client whose secret is shown once.
call() { curl -sS --fail-with-body "$@"; }
admin() { call -H "authorization: Bearer $ADMIN_TOKEN" -H "content-type: application/json" "$@"; }
field() { node -pe "JSON.parse(require('fs').readFileSync(0, 'utf8')).$1"; }
ISSUER=$(admin "localhost:$PORT/admin/realms" -d '{"name":"acme"}' | field issuer)
echo "realm acme, issuer $ISSUER"
admin -X PUT "localhost:$PORT/admin/realms/acme/scopes/orders:read" -d '{"description":"Read your orders"}'; echo
admin "localhost:$PORT/admin/realms/acme/users" \
  -d '{"username":"alice","password":"correct horse battery","claims":{"name":"Alice Liddell","email":"alice@example.com"}}'; echo
SECRET=$(admin "localhost:$PORT/admin/realms/acme/clients" -d '{"client_id":"shop","client_name":"The shop",
  "redirect_uris":["http://localhost:3000/callback"],"grant_types":["client_credentials","authorization_code","refresh_token"],
  "scope":"openid profile email orders:read"}' | field client_secret)

# --- A service's token (client credentials), and what introspection says of it.
TOKEN=$(call -u "shop:$SECRET" "$ISSUER/access_token" -d grant_type=client_credentials -d scope=orders:read | field access_token)
echo -n "introspection: "; call -u "shop:$SECRET" "$ISSUER/introspect" -d "token=$TOKEN"; echo

# --- A person signing in: the authorization code flow with PKCE, curl playing the browser.
VERIFIER=$(node -e "console.log(require('crypto').randomBytes(32).toString('base64url'))")
CHALLENGE=$(node -e "console.log(require('crypto').createHash('sha256').update(process.argv[1]).digest('base64url'))" -- "$VERIFIER")
browser() { call -b "$WORK/cookies" -c "$WORK/cookies" "$@"; }
redirect() { browser -o /dev/null -w '%{redirect_url}' "$@"; }
hidden() { grep -o "name=\"$2\" value=\"[^\"]*\"" <<<"$1" | cut -d'"' -f4; }
LOGIN=$(redirect -G "$ISSUER/authorize" -d response_type=code -d client_id=shop \
  --data-urlencode redirect_uri=http://localhost:3000/callback --data-urlencode "scope=openid profile email" \
  -d state=xyz -d "code_challenge=$CHALLENGE" -d code_challenge_method=S256)
PAGE=$(browser "$LOGIN")
CONSENT=$(redirect "$LOGIN" --data-urlencode "transaction=$(hidden "$PAGE" transaction)" --data-urlencode "csrf=$(hidden "$PAGE" csrf)" \
  --data-urlencode "step=$(hidden "$PAGE" step)" -d username=alice --data-urlencode "password=correct horse battery")
PAGE=$(browser "$CONSENT")
CALLBACK=$(redirect "$CONSENT" --data-urlencode "transaction=$(hidden "$PAGE" transaction)" --data-urlencode "csrf=$(hidden "$PAGE" csrf)" \
  -d decision=allow)
echo "back at the client: $CALLBACK"
CODE=$(node -p "new URL(process.argv[1]).searchParams.get('code')" "$CALLBACK")
TOKENS=$(call -u "shop:$SECRET" "$ISSUER/access_token" -d grant_type=authorization_code -d "code=$CODE" \
  --data-urlencode redirect_uri=http://localhost:3000/callback -d "code_verifier=$VERIFIER")
echo "tokens: $TOKENS"
echo -n "the ID token's claims: "; echo "$TOKENS" | field id_token | node -pe "Buffer.from(require('fs').readFileSync(0, 'utf8').split('.')[1], 'base64url').toString()"
echo -n "userinfo: "; call -H "authorization: Bearer $(echo "$TOKENS" | field access_token)" "$ISSUER/userinfo"; echo

# --- A graceful stop: SIGTERM, in-flight requests finished, exit 0.
kill -TERM "$SERVER"; wait "$SERVER"; echo "realmgate stopped, exit $?"
rm -rf "$WORK"
