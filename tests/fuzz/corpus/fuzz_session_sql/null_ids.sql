UPDATE syncs SET thread_id = NULL WHERE id = 1;
