DELETE FROM meta WHERE key = 'start_ns'; UPDATE meta SET value = '-5' WHERE key = 'end_ns';
