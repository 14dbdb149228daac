WITH RECURSIVE n(i) AS (SELECT 1000 UNION ALL SELECT i + 1 FROM n WHERE i < 4000) INSERT INTO processes (id, pid, host, command, start_ns) SELECT i, i, 'h', 'c', 0 FROM n;
