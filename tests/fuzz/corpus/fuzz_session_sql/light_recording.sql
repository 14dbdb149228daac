DELETE FROM api_calls; INSERT OR REPLACE INTO meta(key, value) VALUES ('recorder_mode', 'light');
