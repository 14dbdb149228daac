UPDATE syncs SET kind = 200 WHERE id = 1; UPDATE memcpys SET copy_kind = -5, dst_kind = 99 WHERE id = 1; UPDATE ranges SET kind = 77 WHERE id = 1;
