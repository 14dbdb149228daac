#!/usr/bin/env bash
# docs/fleet.md's engine recipe in DuckDB, by hand (not in CI: it installs DuckDB's Node.js package
# from npm). DuckDB's SQLite extension downloads from DuckDB's own server, out of reach here, so
# each rank's tables are exported to CSV with the sqlite3 shell and loaded as the attached
# database's tables; everything else — the fleet tables, each rank's inserts, the fleet queries —
# is the doc's SQL as it stands, and its answers are compared with `stallscope --summary --json`.
# Usage: scripts/check_fleet_sql_duckdb.sh BUILD_DIR   (with stallscope and stallscope-gen built)
set -euo pipefail
build=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$build/bench/stallscope-gen" --ranks 4 --run-folder --rank-steps 60 --straggler-rank 2 \
  --straggler-delay-us 4000 --rank-jitter-us 300 --kernels 6 -q -o "$work/run"
"$build/app/stallscope" --summary --json "$work/run" > "$work/summary.json"
for f in "$work"/run/rank*.stallscope; do
  r=${f##*/rank}; r=${r%.stallscope}
  mkdir -p "$work/csv/$r"
  for table in ranges strings kernels memcpys memsets streams syncs stack_frames frames; do
    # A header of name:type (the shell writes none for an empty table), then the rows.
    db="file:$f?immutable=1"
    sqlite3 -readonly "$db" \
      "SELECT group_concat(name || ':' || type, ',') FROM pragma_table_info('$table')" \
      > "$work/csv/$r/$table.csv"
    sqlite3 -readonly -csv "$db" "SELECT * FROM $table" >> "$work/csv/$r/$table.csv"
  done
done
(cd "$work" && npm install --silent --no-audit --no-fund @duckdb/node-api@1.5.6-r.1 > /dev/null)
cp "$repo/scripts/fleet/check_fleet_sql_duckdb.mjs" "$work/"
(cd "$work" && node check_fleet_sql_duckdb.mjs "$repo/docs/fleet.md" csv summary.json)
