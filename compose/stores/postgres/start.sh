#!/bin/sh
# A fresh cluster, the lab's user with trust on the project's network, the app's database,
# then the server in the foreground (as the local runtime runs it: lab/stores/postgres.js).
set -e
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
data=/tmp/pgdata
rm -rf "$data"
"$bin/initdb" -D "$data" -U lab --auth=trust -E UTF8 --no-instructions >/dev/null
echo "host all all 0.0.0.0/0 trust" >> "$data/pg_hba.conf"
# (On another port while it is made: the health check asks 5432, ready only at the end.)
"$bin/pg_ctl" -D "$data" -o "-p 5433 -c listen_addresses=127.0.0.1 -k /tmp" -w start >/dev/null
"$bin/createdb" -h 127.0.0.1 -p 5433 -U lab app
"$bin/pg_ctl" -D "$data" -m fast -w stop >/dev/null
exec "$bin/postgres" -D "$data" -k /tmp -c listen_addresses='*' -c "max_connections=${MAX_CONNECTIONS}"
