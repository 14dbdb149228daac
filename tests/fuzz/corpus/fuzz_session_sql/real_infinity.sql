UPDATE kernels SET start_ns = 1e999 WHERE id = 3; UPDATE memcpys SET bytes = -1e999 WHERE id = 1;
