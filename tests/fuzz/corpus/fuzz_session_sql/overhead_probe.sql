-- The recorder's overhead probe (meta recorder_overhead_probe, format/overhead_probe.h): two
-- stretches with the collection off inside the recording, counting the loop's sync calls, so
-- that the fuzzer starts from a value the parser accepts and the not-recorded stretches, the loop
-- cut at them and the measured cost all run.
INSERT OR REPLACE INTO meta(key, value) SELECT 'recorder_overhead_probe', 'api=cudaStreamSynchronize;off=' || (MIN(start_ns) + 1000) || ',' || (MIN(start_ns) + 500000) || ',5,' || (MIN(start_ns) + 2000) || ',' || (MIN(start_ns) + 400000) || ';off=' || (MIN(start_ns) + 900000) || ',' || (MIN(start_ns) + 1400000) || ',3,' || (MIN(start_ns) + 901000) || ',' || (MIN(start_ns) + 1300000) FROM api_calls;
