// Runs docs/fleet.md's fleet tables, per-rank inserts and fleet queries in DuckDB on ranks loaded
// from CSV (scripts/check_fleet_sql_duckdb.sh), and compares the answers with the summary's JSON.
// Usage: node check_fleet_sql_duckdb.mjs DOC CSV_DIR SUMMARY_JSON
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync, readdirSync } from 'node:fs';

const [doc, csvDir, summaryFile] = process.argv.slice(2);
const blocks = {};
for (const m of readFileSync(doc, 'utf8').matchAll(/<!-- sql: (\w+) -->\n```sql\n([\s\S]*?)```/g))
  blocks[m[1]] = m[2];
const summary = JSON.parse(readFileSync(summaryFile, 'utf8'));

const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
const version = (await c.runAndReadAll('SELECT version()')).getRows()[0][0];
await c.run("ATTACH ':memory:' AS fleet");
await c.run(blocks.fleet_tables);
const ranks = readdirSync(csvDir).map(Number).sort((a, b) => a - b);
for (const r of ranks) {
  // The rank's tables where the doc's ATTACH … (TYPE SQLITE) would put them.
  await c.run("ATTACH ':memory:' AS rank");
  for (const file of readdirSync(`${csvDir}/${r}`)) {
    const table = file.replace('.csv', '');
    const path = `${csvDir}/${r}/${file}`;
    const header = readFileSync(path, 'utf8').split('\n')[0].split(',');
    const columns = header.map((c) => {
      const [name, type] = c.split(':');
      return `'${name}': '${type.startsWith('INTEGER') ? 'BIGINT' : 'VARCHAR'}'`;
    });
    await c.run(`CREATE TABLE rank.${table} AS SELECT * FROM read_csv('${path}', header = true, ` +
                `columns = {${columns.join(', ')}}, nullstr = '')`);
  }
  await c.run('USE rank');
  await c.run(blocks.rank_insert.replaceAll('{RANK}', String(r)));
  await c.run('USE fleet');
  await c.run('DETACH rank');
}
const rows = async (name) => (await c.runAndReadAll(blocks[name])).getRows()
  .map((row) => row.map((v) => (v === null ? null : typeof v === 'bigint' ? Number(v) : v)));

let failures = 0;
const expect = (what, got, want) => {
  const ok = JSON.stringify(got) === JSON.stringify(want);
  if (!ok) failures++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}: ${JSON.stringify(got)}${ok ? '' : ` (summary: ${JSON.stringify(want)})`}`);
};
const byRank = Object.fromEntries(summary.ranks.map((rank) => [rank.rank, rank]));
for (const [rank, source, steps, median, p90] of await rows('fleet_steps'))
  expect(`rank ${rank} steps, median, p90`, [steps, median, p90],
         [byRank[rank].steps.count, byRank[rank].steps.median_ns, byRank[rank].steps.p90_ns]);
for (const [rank, syncs, blocked, busy, span] of await rows('fleet_time'))
  expect(`rank ${rank} syncs, blocked, GPU busy, span`, [syncs, blocked, busy, span],
         [byRank[rank].blocking_syncs, byRank[rank].blocked_ns, byRank[rank].gpu_busy_ns,
          byRank[rank].gpu_end_ns - byRank[rank].gpu_start_ns]);
for (const [rank, lastAt, median, matched, contended] of await rows('fleet_stragglers'))
  expect(`rank ${rank} last at, median lateness, matched, contended`,
         [lastAt, median, matched, contended],
         [byRank[rank].last_at, byRank[rank].lateness_median_ns, summary.collectives.matched,
          summary.collectives.contended]);
const sites = await rows('fleet_sites');
expect('top sites', sites, summary.sites.map((s) => [s.file, s.line, s.blocked_ns, s.syncs, s.ranks]));
console.log(`DuckDB ${version}: ${failures === 0 ? 'every number equal' : `${failures} differ`}`);
process.exit(failures === 0 ? 0 : 1);
