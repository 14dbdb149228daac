UPDATE syncs SET stack_id = -1 WHERE id = 1;
