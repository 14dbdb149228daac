UPDATE streams SET device_id = 999 WHERE id = (SELECT min(id) FROM streams);
