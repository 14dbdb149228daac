UPDATE api_calls SET end_ns = start_ns - 1000000000 WHERE id % 7 = 0;
