UPDATE syncs SET thread_id = 777, stream_id = 555 WHERE id = 4; UPDATE kernels SET stream_id = 4242 WHERE id = 5; UPDATE api_calls SET name_id = 31337 WHERE id = 6;
