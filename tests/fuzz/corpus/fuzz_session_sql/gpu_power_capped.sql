INSERT OR REPLACE INTO meta(key, value) VALUES ('gpu_power', 'on'), ('gpu_power_samples', '40'), ('gpu_power_busy_samples', '24'), ('gpu_power_capped_samples', '24'), ('gpu_power_limit_w', '700');
