UPDATE kernels SET start_ns = 'yesterday', stream_id = 'x' WHERE id = 2; UPDATE syncs SET kind = 'stream' WHERE id = 3;
