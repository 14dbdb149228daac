INSERT INTO strings (id, text) VALUES (100000000, 'far away'); UPDATE kernels SET name_id = 100000000 WHERE id = 1;
