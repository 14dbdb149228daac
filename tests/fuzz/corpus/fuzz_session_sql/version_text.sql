UPDATE meta SET value = '1abc' WHERE key = 'format_version';
