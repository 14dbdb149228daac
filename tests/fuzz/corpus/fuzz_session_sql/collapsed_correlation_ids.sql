-- CUPTI's correlation ids collapsed mid-run (model/session/correlation_health.h): every API call
-- in the second half of the recording, doubled twice so a thread has well over 100 of them,
-- carries one id, so the load warns from when; the fuzzer starts from that path.
INSERT INTO api_calls(thread_id, domain, cbid, name_id, start_ns, end_ns, correlation_id, return_code) SELECT thread_id, domain, cbid, name_id, start_ns + 1, end_ns + 1, correlation_id, return_code FROM api_calls;
INSERT INTO api_calls(thread_id, domain, cbid, name_id, start_ns, end_ns, correlation_id, return_code) SELECT thread_id, domain, cbid, name_id, start_ns + 2, end_ns + 2, correlation_id, return_code FROM api_calls;
UPDATE api_calls SET correlation_id = 424242 WHERE start_ns > (SELECT AVG(start_ns) FROM api_calls);
